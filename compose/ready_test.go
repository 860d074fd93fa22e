package compose

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// fakeEngine answers the two calls WaitReady makes from a script of
// states; the last state repeats. Other engine.Engine methods are not used.
type fakeEngine struct {
	engine.Engine
	mu     sync.Mutex
	states []*container.State // nil list: no container
}

func (f *fakeEngine) ContainerList(context.Context, container.ListOptions) ([]container.Summary, error) {
	if f.states == nil {
		return nil, nil
	}
	return []container.Summary{{ID: "0123456789abcdef"}}, nil
}

func (f *fakeEngine) ContainerInspect(_ context.Context, id string) (container.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.states[0]
	if len(f.states) > 1 {
		f.states = f.states[1:]
	}
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: id, State: st}}, nil
}

func health(s container.HealthStatus) *container.State {
	return &container.State{Status: container.StateRunning, Running: true, Health: &container.Health{Status: s,
		Log: []*container.HealthcheckResult{{ExitCode: 1, Output: "connection refused\n"}}}}
}

func TestWaitReady(t *testing.T) {
	t.Parallel()
	ok := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(ok.Close)
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(unavailable.Close)
	running := &container.State{Status: container.StateRunning, Running: true}
	exited := &container.State{Status: container.StateExited, ExitCode: 3, OOMKilled: true}
	cases := []struct {
		name     string
		states   []*container.State
		url      string
		wantErr  error
		wantText string
	}{
		{"healthy after starting", []*container.State{health(container.Starting), health(container.Healthy)}, "", nil, ""},
		{"unhealthy then healthy", []*container.State{health(container.Unhealthy), health(container.Healthy)}, "", nil, ""},
		{"stays unhealthy", []*container.State{health(container.Unhealthy)}, "", sweep.ErrNotReady, `last check exit 1: "connection refused"`},
		{"exits", []*container.State{health(container.Starting), exited}, "", ErrTargetExited, "exit code 3, OOM-killed"},
		{"http 200", []*container.State{running}, ok.URL, nil, ""},
		{"http 503", []*container.State{running}, unavailable.URL, sweep.ErrNotReady, "503"},
		{"no ready url", []*container.State{running}, "", nil, ""},
		{"no container", nil, ok.URL, sweep.ErrNotReady, "no container of service web"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := &Stack{eng: &fakeEngine{states: c.states}, project: "sweepx", opts: Options{StackOptions: sweep.StackOptions{Service: "web", ReadyURL: c.url}}}
			// The failing cases wait out the whole timeout; 3 s leaves a
			// loaded machine time for a few HTTP answers (at 700 ms the
			// 503 case once ended before its first answer arrived).
			err := s.WaitReady(t.Context(), 3*time.Second)
			if !errors.Is(err, c.wantErr) || (err != nil && !strings.Contains(err.Error(), c.wantText)) {
				t.Errorf("WaitReady = %v, want %v containing %q", err, c.wantErr, c.wantText)
			}
		})
	}
}

func TestWaitReadyCancelled(t *testing.T) {
	t.Parallel()
	s := &Stack{eng: &fakeEngine{states: []*container.State{health(container.Starting)}}, opts: Options{StackOptions: sweep.StackOptions{Service: "web"}}}
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	err := s.WaitReady(ctx, time.Minute)
	if !errors.Is(err, context.Canceled) || errors.Is(err, sweep.ErrNotReady) {
		t.Errorf("WaitReady after cancel = %v, want context.Canceled", err)
	}
}

func TestCPUsOf(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		r    container.Resources
		want float64
	}{
		{"nano", container.Resources{NanoCPUs: 1_500_000_000}, 1.5},
		{"quota", container.Resources{CPUQuota: 50_000, CPUPeriod: 100_000}, 0.5},
		{"quota default period", container.Resources{CPUQuota: 250_000}, 2.5},
		{"no limit", container.Resources{}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := cpusOf(c.r); got != c.want {
				t.Errorf("cpusOf = %g, want %g", got, c.want)
			}
		})
	}
}

func TestPickEnv(t *testing.T) {
	t.Parallel()
	got := pickEnv([]string{"A=1", "B=x=y", "PATH=/bin", "A=2", "C"}, []string{"A", "B", "D"})
	if len(got) != 2 || got["A"] != "2" || got["B"] != "x=y" {
		t.Errorf("pickEnv = %v", got)
	}
}

// TestNotReadyIsOneLine: a healthcheck whose output has many lines gives
// a one-line reason (its first line) and its full text for target.log.
func TestNotReadyIsOneLine(t *testing.T) {
	t.Parallel()
	out := "curl: (7) Failed to connect\n<html>\n<body>503 Service Unavailable</body>\n</html>\n"
	st := &container.State{Status: container.StateRunning, Running: true, Health: &container.Health{
		Status: container.Unhealthy, Log: []*container.HealthcheckResult{{ExitCode: 7, Output: out}}}}
	s := &Stack{eng: &fakeEngine{states: []*container.State{st}}, project: "sweepx", opts: Options{StackOptions: sweep.StackOptions{Service: "web"}}}
	err := s.WaitReady(t.Context(), 300*time.Millisecond)
	if msg := err.Error(); !errors.Is(err, sweep.ErrNotReady) || strings.Contains(msg, "\n") || strings.Contains(msg, `\n`) ||
		strings.Contains(msg, "html") || !strings.Contains(msg, "Failed to connect") || !strings.Contains(msg, "target.log") {
		t.Errorf("WaitReady = %q, want one line with the check's first line and a pointer to target.log", msg)
	}
	if full := healthLog(st); !strings.Contains(full, out) {
		t.Errorf("healthLog lacks the full output:\n%s", full)
	}
}
