package remote

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// fakeEngine is a swarm manager with one service at most. Its followed
// logs print what logs holds, then what afterStop holds once the service
// was scaled to zero, and end when the service is removed or the request
// is cancelled; unless follow is set they hold what logs holds and end.
type fakeEngine struct {
	mu        sync.Mutex
	spec      swarm.ServiceSpec
	created   int
	removed   []string
	scaled    chan struct{} // closed by an update to 0 replicas
	gone      chan struct{} // closed by ServiceRemove
	logs      string
	afterStop string
	follow    bool // follow streams stay open until stop or removal
	state     swarm.TaskState
	taskErr   string
}

func newFake() *fakeEngine {
	return &fakeEngine{scaled: make(chan struct{}), gone: make(chan struct{}), state: swarm.TaskStateRunning, follow: true}
}

func (f *fakeEngine) ServiceCreate(_ context.Context, spec swarm.ServiceSpec, _ swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spec = spec
	f.created++
	return swarm.ServiceCreateResponse{ID: "svc1"}, nil
}

func (f *fakeEngine) ServiceInspectWithRaw(context.Context, string, swarm.ServiceInspectOptions) (swarm.Service, []byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return swarm.Service{ID: "svc1", Spec: f.spec, Meta: swarm.Meta{Version: swarm.Version{Index: 7}}}, nil, nil
}

func (f *fakeEngine) ServiceUpdate(_ context.Context, _ string, v swarm.Version, spec swarm.ServiceSpec, _ swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v.Index != 7 {
		return swarm.ServiceUpdateResponse{}, errors.New("update out of sequence")
	}
	if r := spec.Mode.Replicated; r != nil && r.Replicas != nil && *r.Replicas == 0 {
		close(f.scaled)
		f.state = swarm.TaskStateShutdown
	}
	f.spec = spec
	return swarm.ServiceUpdateResponse{}, nil
}

func (f *fakeEngine) ServiceRemove(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, id)
	close(f.gone)
	return nil
}

func (f *fakeEngine) ServiceLogs(ctx context.Context, _ string, opts container.LogsOptions) (io.ReadCloser, error) {
	pr, pw := io.Pipe()
	out := stdcopy.NewStdWriter(pw, stdcopy.Stdout)
	go func() {
		_, _ = out.Write([]byte(f.logs))
		if opts.Follow && f.follow {
			select {
			case <-f.scaled:
				_, _ = out.Write([]byte(f.afterStop))
			case <-f.gone:
			case <-ctx.Done():
			}
		}
		pw.Close()
	}()
	return pr, nil
}

func (f *fakeEngine) TaskList(context.Context, swarm.TaskListOptions) ([]swarm.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []swarm.Task{{NodeID: "node3", Status: swarm.TaskStatus{State: f.state, Err: f.taskErr}}}, nil
}

func (f *fakeEngine) NodeInspectWithRaw(context.Context, string) (swarm.Node, []byte, error) {
	return swarm.Node{ID: "node3", Description: swarm.NodeDescription{Hostname: "bench-3"}}, nil, nil
}

// frames renders frames as the far end prints them.
func frames(t *testing.T, docs ...any) string {
	t.Helper()
	var b bytes.Buffer
	for _, d := range docs {
		kind := kindInterval
		switch d.(type) {
		case Result:
			kind = kindResult
		case errorDoc:
			kind = kindError
		}
		if err := writeFrame(&b, kind, d); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func testDriver(t *testing.T, eng Engine) *Driver {
	t.Helper()
	return testDriverWith(t, eng, builtin.Options{})
}

// testDriverWith is testDriver with the built-in driver's options.
func testDriverWith(t *testing.T, eng Engine, opts builtin.Options) *Driver {
	t.Helper()
	d, err := New(eng, Options{Image: "sweep-drive:abc", Constraints: []string{"node.id==node3"},
		Labels: map[string]string{sweep.LabelRun: "r1"}, Poll: 10 * time.Millisecond, Builtin: opts})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func loadReq() sweep.LoadRequest {
	return sweep.LoadRequest{BaseURL: "http://10.77.0.3:18080/", Load: results.LoadInfo{Model: "closed", VUs: 2}, Duration: time.Second}
}

func TestRunReturnsTheFarEndsRecordAndRemovesTheService(t *testing.T) {
	t.Parallel()
	want := fullResult()
	eng := newFake()
	eng.logs = "starting\n" + frames(t, results.Interval{T: 1, Requests: 5}, results.Interval{T: 2, Requests: 6}, want)
	req := loadReq()
	var got []results.Interval
	req.Interval = func(iv results.Interval) { got = append(got, iv) }
	m, err := testDriver(t, eng).Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantM := want.Measurement
	wantM.LoadNode = &results.NodeInfo{ID: "node3", Hostname: "bench-3"}
	wantM.DriverCPU, wantM.DriverWall = 1250*time.Millisecond, 10010*time.Millisecond
	if !reflect.DeepEqual(m, wantM) {
		t.Errorf("measurement = %+v\nwant %+v", m, wantM)
	}
	if len(got) != 2 || got[1].Requests != 6 {
		t.Errorf("intervals = %+v", got)
	}
	if !reflect.DeepEqual(eng.removed, []string{"svc1"}) {
		t.Errorf("removed %v, want the service", eng.removed)
	}
	checkSpec(t, eng.spec)
}

func TestRunHandsTheScenarioToTheFarEnd(t *testing.T) {
	t.Parallel()
	eng := newFake()
	eng.logs = frames(t, fullResult())
	if _, err := testDriverWith(t, eng, builtin.Options{Script: ordersScript(t)}).Run(t.Context(), loadReq()); err != nil {
		t.Fatal(err)
	}
	req := checkSpec(t, eng.spec)
	if req.Script == nil || req.Script.File != "orders.yaml" || req.Script.YAML != ordersFile {
		t.Errorf("request's script = %+v, want the orders file", req.Script)
	}
}

func TestRunRefusesARequestTooLargeBeforeCreatingTheService(t *testing.T) {
	t.Parallel()
	eng := newFake()
	req := loadReq()
	req.BaseURL = "http://10.77.0.3:18080/" + strings.Repeat("a", MaxRequestSize)
	_, err := testDriverWith(t, eng, builtin.Options{Script: ordersScript(t)}).Run(t.Context(), req)
	if !errors.Is(err, ErrRequestTooLarge) || eng.created != 0 {
		t.Fatalf("err = %v with %d services created, want ErrRequestTooLarge and none", err, eng.created)
	}
}

// checkSpec checks the one-shot service's spec and returns the request
// in its environment.
func checkSpec(t *testing.T, spec swarm.ServiceSpec) Request {
	t.Helper()
	cs := spec.TaskTemplate.ContainerSpec
	if cs.Image != "sweep-drive:abc" || !reflect.DeepEqual(cs.Command, DefaultCommand) {
		t.Errorf("container spec %+v", cs)
	}
	if rp := spec.TaskTemplate.RestartPolicy; rp == nil || rp.Condition != swarm.RestartPolicyConditionNone {
		t.Errorf("restart policy %+v, want none", rp)
	}
	if p := spec.TaskTemplate.Placement; p == nil || !reflect.DeepEqual(p.Constraints, []string{"node.id==node3"}) {
		t.Errorf("placement %+v", p)
	}
	for _, labels := range []map[string]string{spec.Annotations.Labels, cs.Labels} {
		if labels[sweep.LabelRun] != "r1" || labels[LabelLoad] != "measure" {
			t.Errorf("labels %v lack the run's or %s", labels, LabelLoad)
		}
	}
	if len(cs.Env) != 1 {
		t.Fatalf("env %q", cs.Env)
	}
	env, ok := bytes.CutPrefix([]byte(cs.Env[0]), []byte(RequestEnv+"="))
	if !ok {
		t.Fatalf("env %q lacks %s", cs.Env[0], RequestEnv)
	}
	req, err := DecodeRequest(env)
	if err != nil || req.BaseURL != "http://10.77.0.3:18080/" || req.Duration != "1s" {
		t.Errorf("request in env = %+v, %v", req, err)
	}
	return req
}

func TestRunReportsAFailedTaskWithItsOutput(t *testing.T) {
	t.Parallel()
	eng := newFake()
	eng.follow = false
	eng.logs = "sweep: --request: invalid drive request\n"
	eng.state, eng.taskErr = swarm.TaskStateFailed, "task: non-zero exit (2)"
	_, err := testDriver(t, eng).Run(t.Context(), loadReq())
	var te *TaskError
	if !errors.As(err, &te) || !errors.Is(err, ErrNoResult) {
		t.Fatalf("err = %v, want a TaskError", err)
	}
	if te.State != swarm.TaskStateFailed || te.Message != "task: non-zero exit (2)" ||
		!reflect.DeepEqual(te.Tail, []string{"sweep: --request: invalid drive request"}) {
		t.Errorf("task error %+v", te)
	}
	if len(eng.removed) != 1 {
		t.Errorf("removed %v, want the service", eng.removed)
	}
}

func TestRunReportsTheFarEndsError(t *testing.T) {
	t.Parallel()
	eng := newFake()
	eng.logs = frames(t, errorDoc{Error: "invalid drive request: scenario"})
	_, err := testDriver(t, eng).Run(t.Context(), loadReq())
	if !errors.Is(err, ErrFarEnd) {
		t.Fatalf("err = %v, want ErrFarEnd", err)
	}
}

func TestCancelRemovesTheService(t *testing.T) {
	t.Parallel()
	eng := newFake()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := testDriver(t, eng).Run(ctx, loadReq())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !reflect.DeepEqual(eng.removed, []string{"svc1"}) {
		t.Errorf("removed %v after cancel, want the service", eng.removed)
	}
}

func TestStopScalesToZeroAndKeepsTheResult(t *testing.T) {
	t.Parallel()
	want := fullResult()
	eng := newFake()
	eng.afterStop = frames(t, want)
	req := loadReq()
	req.Duration = time.Hour
	stop := make(chan struct{})
	req.Stop = stop
	time.AfterFunc(50*time.Millisecond, func() { close(stop) })
	m, err := testDriver(t, eng).Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if m.Requests != want.Measurement.Requests || m.LoadNode == nil || m.LoadNode.ID != "node3" {
		t.Errorf("measurement after stop = %+v", m)
	}
	if r := eng.spec.Mode.Replicated; r == nil || *r.Replicas != 0 {
		t.Errorf("service not scaled to zero: %+v", eng.spec.Mode)
	}
}

func TestNewNeedsAnImage(t *testing.T) {
	t.Parallel()
	if _, err := New(newFake(), Options{}); !errors.Is(err, ErrNoImage) {
		t.Fatalf("err = %v, want ErrNoImage", err)
	}
}
