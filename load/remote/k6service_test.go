package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/sweep-tool/sweep/sweep"
)

// k6Fake is a swarm manager for a k6 load's two services: the install
// service's task ends (installState, on node2, printing installLogs),
// the phase's task runs and prints phaseLogs.
type k6Fake struct {
	mu           sync.Mutex
	specs        []swarm.ServiceSpec // by creation; id svc<index>
	removed      []string
	installState swarm.TaskState
	installLogs  string
	phaseLogs    string
}

func (f *k6Fake) idx(id string) int {
	var i int
	_, _ = fmt.Sscanf(id, "svc%d", &i)
	return i
}

func (f *k6Fake) isInstall(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.specs[f.idx(id)].Labels[LabelLoad] == "install"
}

func (f *k6Fake) ServiceCreate(_ context.Context, spec swarm.ServiceSpec, _ swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.specs = append(f.specs, spec)
	return swarm.ServiceCreateResponse{ID: fmt.Sprintf("svc%d", len(f.specs)-1)}, nil
}

func (f *k6Fake) ServiceInspectWithRaw(_ context.Context, id string, _ swarm.ServiceInspectOptions) (swarm.Service, []byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return swarm.Service{ID: id, Spec: f.specs[f.idx(id)]}, nil, nil
}

func (f *k6Fake) ServiceUpdate(context.Context, string, swarm.Version, swarm.ServiceSpec, swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error) {
	return swarm.ServiceUpdateResponse{}, nil
}

func (f *k6Fake) ServiceRemove(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, id)
	return nil
}

func (f *k6Fake) ServiceLogs(_ context.Context, id string, _ container.LogsOptions) (io.ReadCloser, error) {
	text := f.phaseLogs
	if f.isInstall(id) {
		text = f.installLogs
	}
	var b bytes.Buffer
	_, _ = stdcopy.NewStdWriter(&b, stdcopy.Stdout).Write([]byte(text))
	return io.NopCloser(&b), nil
}

func (f *k6Fake) TaskList(_ context.Context, opts swarm.TaskListOptions) ([]swarm.Task, error) {
	id := opts.Filters.Get("service")[0]
	if f.isInstall(id) {
		return []swarm.Task{{NodeID: "node2", Status: swarm.TaskStatus{State: f.installState}}}, nil
	}
	return []swarm.Task{{NodeID: "node2", Status: swarm.TaskStatus{State: swarm.TaskStateRunning}}}, nil
}

func (f *k6Fake) NodeInspectWithRaw(context.Context, string) (swarm.Node, []byte, error) {
	return swarm.Node{ID: "node2", Description: swarm.NodeDescription{Hostname: "bench-2"}}, nil, nil
}

func k6Driver(t *testing.T, eng Engine, script *sweep.Script) *Driver {
	t.Helper()
	d, err := New(eng, Options{Image: "sweep-drive:abc", Constraints: []string{"node.labels.role==load"}, NamePrefix: "sweepr1",
		Labels: map[string]string{sweep.LabelRun: "r1"}, Poll: 10 * time.Millisecond,
		K6: &K6Options{Image: "grafana/k6:1", Script: script}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestK6OnASwarmNodeInstallsSweepThenRunsK6There: a k6 phase is an
// install service from the load image, placed by the load's constraints,
// writing sweep into the stack's labelled volume, then the phase's
// service from the k6 image, pinned to the node the install ran on,
// mounting that volume and running the installed `sweep drive` with the
// user's script in its request; both are removed.
func TestK6OnASwarmNodeInstallsSweepThenRunsK6There(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "user.js")
	if err := os.WriteFile(path, []byte(userK6Script), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := sweep.ReadUserFile[sweep.K6Script](path)
	if err != nil {
		t.Fatal(err)
	}
	want := fullResult()
	eng := &k6Fake{installState: swarm.TaskStateComplete, installLogs: "installed /sweep-bin/sweep\n", phaseLogs: frames(t, want)}
	d := k6Driver(t, eng, script)
	if d.Name() != "k6" {
		t.Errorf("Name() = %q, want k6", d.Name())
	}
	m, err := d.Run(t.Context(), loadReq())
	if err != nil {
		t.Fatal(err)
	}
	if m.LoadNode == nil || m.LoadNode.ID != "node2" || m.Requests != want.Measurement.Requests {
		t.Errorf("measurement: load on %+v, %d requests; want node2's result", m.LoadNode, m.Requests)
	}
	if len(eng.specs) != 2 || !reflect.DeepEqual(eng.removed, []string{"svc0", "svc1"}) {
		t.Fatalf("%d services created, removed %v; want the install and the phase, both removed", len(eng.specs), eng.removed)
	}
	vol := mount.Mount{Type: mount.TypeVolume, Source: "sweepr1-sweep-bin", Target: K6Mount,
		VolumeOptions: &mount.VolumeOptions{Labels: map[string]string{sweep.LabelRun: "r1"}}}

	inst := eng.specs[0]
	ics := inst.TaskTemplate.ContainerSpec
	if ics.Image != "sweep-drive:abc" || !reflect.DeepEqual(ics.Command, []string{"/sweep", "drive", "--install", K6Mount}) ||
		!reflect.DeepEqual(ics.Mounts, []mount.Mount{vol}) || inst.Labels[sweep.LabelRun] != "r1" || inst.Labels[LabelLoad] != "install" {
		t.Errorf("install service: %+v labels %v", ics, inst.Labels)
	}
	if p := inst.TaskTemplate.Placement; !reflect.DeepEqual(p.Constraints, []string{"node.labels.role==load"}) {
		t.Errorf("install placed by %v, want the load's constraints", p.Constraints)
	}
	if rp := inst.TaskTemplate.RestartPolicy; rp == nil || rp.Condition != swarm.RestartPolicyConditionNone {
		t.Errorf("install restart policy %+v, want none", rp)
	}

	ph := eng.specs[1]
	cs := ph.TaskTemplate.ContainerSpec
	if cs.Image != "grafana/k6:1" || !reflect.DeepEqual(cs.Command, []string{"/sweep-bin/sweep", "drive", "--dir", K6Mount}) ||
		!reflect.DeepEqual(cs.Mounts, []mount.Mount{vol}) || ph.Labels[LabelLoad] != "measure" {
		t.Errorf("phase service: %+v labels %v", cs, ph.Labels)
	}
	if p := ph.TaskTemplate.Placement; !reflect.DeepEqual(p.Constraints, []string{"node.labels.role==load", "node.id==node2"}) {
		t.Errorf("phase placed by %v, want the load's constraints and the install's node", p.Constraints)
	}
	env, ok := strings.CutPrefix(cs.Env[0], RequestEnv+"=")
	if !ok {
		t.Fatalf("env %q", cs.Env)
	}
	// what a swarm expands in an environment value does not appear
	if strings.Contains(env, "{{") || strings.Contains(env, "$") {
		t.Errorf("request %q holds {{ or $", env)
	}
	req, err := DecodeRequest([]byte(env))
	if err != nil || req.K6 == nil || req.K6.Script == nil || req.K6.Script.File != "user.js" || req.K6.Script.JS != userK6Script {
		t.Errorf("request %+v, %v; want k6 with the user's script", req.K6, err)
	}
}

// TestK6OnASwarmNodeReportsAFailedInstall: an install whose task fails
// ends the phase with its output, before any phase service is made.
func TestK6OnASwarmNodeReportsAFailedInstall(t *testing.T) {
	t.Parallel()
	eng := &k6Fake{installState: swarm.TaskStateFailed, installLogs: "install sweep into /sweep-bin: read-only file system\n"}
	_, err := k6Driver(t, eng, nil).Run(t.Context(), loadReq())
	var te *TaskError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "read-only file system") || len(eng.specs) != 1 || len(eng.removed) != 1 {
		t.Fatalf("err = %v, %d services made, %d removed; want the install's failure, its service removed, no phase", err, len(eng.specs), len(eng.removed))
	}
}

func TestNewK6NeedsItsImage(t *testing.T) {
	t.Parallel()
	_, err := New(&k6Fake{}, Options{Image: "sweep-drive:abc", K6: &K6Options{}})
	if !errors.Is(err, ErrNoK6Image) {
		t.Errorf("err = %v, want ErrNoK6Image", err)
	}
}
