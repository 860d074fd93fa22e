package kube

import (
	"bytes"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// statusFile is a user's scenario whose operation names are its own.
const statusFile = `scenarios:
  - name: status
    flow:
      - get: {url: "/v2/status?probe={{ $vu }}", expect: 200, name: probe status}
      - delete: {url: /v2/sessions/current, expect: 204, name: end session}
`

// statusServer answers statusFile's requests.
func statusServer(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/status", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"ok": true}`)) })
	mux.HandleFunc("DELETE /v2/sessions/current", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func statusScript(t *testing.T) *scenario.Script {
	t.Helper()
	s, err := scenario.Parse("/home/user/status.yaml", []byte(statusFile))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// farEnd is a fake API server whose load Jobs run: creating a Job starts
// its pod on node2, where `sweep drive`'s Serve runs the request from the
// pod's environment; the pod's log is what Serve printed.
func farEnd(t *testing.T) *fake.Clientset {
	t.Helper()
	cs := fake.NewClientset()
	var log []byte
	cs.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		job := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		spec := job.Spec.Template.Spec
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-x1", Namespace: job.Namespace,
				Labels: map[string]string{"batch.kubernetes.io/job-name": job.Name}},
			Spec:   corev1.PodSpec{NodeName: "node2", Containers: spec.Containers},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		if err := cs.Tracker().Add(pod); err != nil {
			return true, nil, err
		}
		getenv := func(name string) string {
			for _, e := range spec.Containers[0].Env {
				if e.Name == name {
					return e.Value
				}
			}
			return ""
		}
		var out bytes.Buffer
		if req, err := remote.ReadRequest("", getenv, strings.NewReader("")); err != nil {
			t.Errorf("the pod's request: %v", err)
		} else if err := remote.Serve(t.Context(), req, remote.ServeOptions{}, nil, &out); err != nil {
			t.Errorf("the far end: %v", err)
		}
		log = out.Bytes()
		return false, nil, nil // the tracker keeps the Job
	})
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		return true, &runtime.Unknown{Raw: log}, nil
	})
	return cs
}

func testLoadDriver(t *testing.T, cs *fake.Clientset, opts builtin.Options) *Driver {
	t.Helper()
	d, err := NewDriver(&Client{Core: cs}, DriverOptions{Image: "sweep-drive:abc", Namespace: "sweep-r1",
		Labels: map[string]string{sweep.LabelRun: "r1"}, Builtin: opts})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestLoadJobRunsTheUsersScenario(t *testing.T) {
	t.Parallel()
	cs := farEnd(t)
	req := sweep.LoadRequest{BaseURL: statusServer(t), Load: results.LoadInfo{Model: "closed", VUs: 2}, Duration: time.Second}
	m, err := testLoadDriver(t, cs, builtin.Options{Script: statusScript(t)}).Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	ops := slices.Sorted(maps.Keys(m.Ops))
	if want := []string{"end session", "probe status"}; !slices.Equal(ops, want) || m.Requests == 0 || m.ErrorRate != 0 {
		t.Errorf("measurement: operations %q, %d requests, error rate %v; want %q without errors", ops, m.Requests, m.ErrorRate, want)
	}
	if m.LoadNode == nil || m.LoadNode.ID != "node2" {
		t.Errorf("load node %+v, want node2", m.LoadNode)
	}
	jobs, err := cs.BatchV1().Jobs("sweep-r1").List(t.Context(), metav1.ListOptions{})
	if err != nil || len(jobs.Items) != 0 {
		t.Errorf("jobs left: %v, %v", jobs, err)
	}
	created := jobsCreated(cs)
	if len(created) != 1 || created[0].Labels[sweep.LabelRun] != "r1" || created[0].Labels[LabelLoad] != "measure" {
		t.Fatalf("created jobs %+v, want one labelled with the run's labels", created)
	}
}

// jobsCreated are the Jobs cs was asked to create.
func jobsCreated(cs *fake.Clientset) []*batchv1.Job {
	var jobs []*batchv1.Job
	for _, a := range cs.Actions() {
		if c, ok := a.(k8stesting.CreateAction); ok && a.GetResource().Resource == "jobs" {
			jobs = append(jobs, c.GetObject().(*batchv1.Job))
		}
	}
	return jobs
}

func TestLoadJobRefusesARequestTooLarge(t *testing.T) {
	t.Parallel()
	cs := farEnd(t)
	req := sweep.LoadRequest{BaseURL: "http://app:8080/" + strings.Repeat("a", remote.MaxRequestSize),
		Load: results.LoadInfo{Model: "closed", VUs: 1}, Duration: time.Second}
	_, err := testLoadDriver(t, cs, builtin.Options{Script: statusScript(t)}).Run(t.Context(), req)
	if !errors.Is(err, remote.ErrRequestTooLarge) || len(jobsCreated(cs)) != 0 {
		t.Fatalf("err = %v with %d jobs created, want ErrRequestTooLarge and none", err, len(jobsCreated(cs)))
	}
	body := "scenarios:\n  - flow:\n      - post: {url: /, body: \"" + strings.Repeat("x", remote.MaxRequestSize) + "\"}\n"
	s, err := scenario.Parse("big.yaml", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewDriver(&Client{Core: cs}, DriverOptions{Image: "sweep-drive:abc", Builtin: builtin.Options{Script: s}})
	if !errors.Is(err, remote.ErrRequestTooLarge) {
		t.Fatalf("NewDriver with a scenario too large: err = %v, want ErrRequestTooLarge", err)
	}
}

// statusK6Script is a user's k6 script of statusServer's status call.
const statusK6Script = `import http from 'k6/http';
export default function () { http.get(` + "`${__ENV.BASE_URL}/v2/status`" + `); }
`

// k6Driver is a load driver of k6 from grafana/k6:1 running the user's
// script statusK6Script, saved in the test's directory.
func k6Driver(t *testing.T, cs *fake.Clientset) (*Driver, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "status.js")
	if err := os.WriteFile(path, []byte(statusK6Script), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := sweep.ReadUserFile[sweep.K6Script](path)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDriver(&Client{Core: cs}, DriverOptions{Image: "sweep-drive:abc", Namespace: "sweep-r1",
		Labels: map[string]string{sweep.LabelRun: "r1"}, K6: &remote.K6Options{Image: "grafana/k6:1", Script: script}})
	if err != nil {
		t.Fatal(err)
	}
	return d, path
}

// TestK6LoadJob checks the Job of a k6 phase: sweep's binary installed
// from the load image by an init container into an emptyDir, which the
// load's container from the k6 image mounts and runs `sweep drive` from,
// the user's script in the request, the run's labels on Job and pod.
func TestK6LoadJob(t *testing.T) {
	t.Parallel()
	d, path := k6Driver(t, fake.NewClientset())
	if d.Name() != "k6" {
		t.Errorf("Name() = %q, want k6", d.Name())
	}
	job, err := d.job(sweep.LoadRequest{BaseURL: "http://app:8080", Load: results.LoadInfo{Model: "closed", VUs: 4}, Duration: 3 * time.Second, Warmup: true})
	if err != nil {
		t.Fatal(err)
	}
	spec := job.Spec.Template.Spec
	if len(spec.Volumes) != 1 || spec.Volumes[0].EmptyDir == nil || len(spec.InitContainers) != 1 || len(spec.Containers) != 1 {
		t.Fatalf("pod spec %+v; want one emptyDir, one init container, one container", spec)
	}
	mount := []corev1.VolumeMount{{Name: spec.Volumes[0].Name, MountPath: "/sweep-bin"}}
	init, load := spec.InitContainers[0], spec.Containers[0]
	if init.Image != "sweep-drive:abc" || !slices.Equal(init.Command, []string{"/sweep", "drive", "--install", "/sweep-bin"}) ||
		!reflect.DeepEqual(init.VolumeMounts, mount) {
		t.Errorf("init container %s %q mounts %+v; want the load image installing sweep into %+v", init.Image, init.Command, init.VolumeMounts, mount)
	}
	if load.Name != "load" || load.Image != "grafana/k6:1" || !slices.Equal(load.Command, []string{"/sweep-bin/sweep", "drive", "--dir", "/sweep-bin"}) ||
		!reflect.DeepEqual(load.VolumeMounts, mount) || load.ImagePullPolicy != corev1.PullIfNotPresent {
		t.Errorf("load container %s %s %q mounts %+v; want the k6 image running the installed sweep", load.Name, load.Image, load.Command, load.VolumeMounts)
	}
	if len(load.Env) != 1 || load.Env[0].Name != remote.RequestEnv {
		t.Fatalf("load container's environment %+v, want the request alone", load.Env)
	}
	req, err := remote.DecodeRequest([]byte(load.Env[0].Value))
	if err != nil || req.K6 == nil || req.K6.Script == nil || req.K6.Script.File != "status.js" || req.K6.Script.JS != statusK6Script || !req.Warmup {
		t.Errorf("request %+v (%v); want the warm-up with k6 running status.js as written", req, err)
	}
	for _, l := range []map[string]string{job.Labels, job.Spec.Template.Labels} {
		if l[sweep.LabelRun] != "r1" || l[LabelLoad] != "warmup" {
			t.Errorf("labels %v, want the run's and %s=warmup", l, LabelLoad)
		}
	}
	if err := os.WriteFile(path, []byte(statusK6Script+"// edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.job(sweep.LoadRequest{BaseURL: "http://app:8080", Load: results.LoadInfo{Model: "closed", VUs: 4}, Duration: 3 * time.Second}); !errors.Is(err, sweep.ErrFileChanged) {
		t.Errorf("a script edited since the run recorded it: err = %v, want ErrFileChanged", err)
	}
	if _, err := NewDriver(&Client{Core: fake.NewClientset()}, DriverOptions{Image: "sweep-drive:abc", K6: &remote.K6Options{}}); !errors.Is(err, remote.ErrNoK6Image) {
		t.Errorf("no k6 image: err = %v, want remote.ErrNoK6Image", err)
	}
}

// TestK6LoadJobRunsK6 runs a k6 phase through a Job of the fake API
// server, whose pod runs `sweep drive`'s Serve against the k6 on PATH
// (skipped without one): the measurement comes back from the pod's log,
// and k6's summary export into the cell's directory.
func TestK6LoadJobRunsK6(t *testing.T) {
	testenv.K6(t)
	t.Parallel()
	cs := farEnd(t)
	d, _ := k6Driver(t, cs)
	dir := t.TempDir()
	req := sweep.LoadRequest{BaseURL: statusServer(t), Load: results.LoadInfo{Model: "closed", VUs: 2}, Duration: 2 * time.Second, Dir: dir}
	m, err := d.Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests, %.0f rps, %d VUs, far end's CPU %s", m.Requests, m.RPS, m.VUsMax, m.DriverCPU)
	if m.Requests == 0 || m.ErrorRate != 0 || m.VUsMax != 2 || m.LoadNode == nil || m.LoadNode.ID != "node2" {
		t.Errorf("measurement: %d requests, error rate %v, %d VUs, load node %+v; want 2 VUs' requests without errors from node2",
			m.Requests, m.ErrorRate, m.VUsMax, m.LoadNode)
	}
	export, err := os.ReadFile(filepath.Join(dir, k6.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if parsed, err := k6.ParseSummary(export); err != nil || parsed.Requests != m.Requests {
		t.Errorf("the kept export: %d requests (%v), the record %d", parsed.Requests, err, m.Requests)
	}
}
