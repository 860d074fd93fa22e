package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// fakeWatch is a StackWatch whose changes a test fires.
type fakeWatch struct {
	mu      sync.Mutex
	events  []results.StackEvent
	err     error
	changed chan struct{}
	stopped bool
}

func (w *fakeWatch) fire(ev results.StackEvent) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.events) == 0 {
		close(w.changed)
	}
	w.events = append(w.events, ev)
}

func (w *fakeWatch) Changed() <-chan struct{} { return w.changed }
func (w *fakeWatch) Stop(context.Context) ([]results.StackEvent, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	return w.events, w.err
}

// changingDriver fires a change of the stack into the cell's watch a
// moment into the phase named by during, then loads until the phase's end
// or ctx is done, as a driver meeting a restarting target would.
type changingDriver struct {
	stack  *fakeStack
	during string // "warmup" or "measure"
	ev     results.StackEvent
	broke  error // the watch's error instead of an event
	ended  time.Duration
}

func (d *changingDriver) Name() string { return "fake" }
func (d *changingDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	start := time.Now()
	if req.Warmup == (d.during == "warmup") {
		time.Sleep(50 * time.Millisecond)
		if d.broke != nil {
			d.stack.watch.mu.Lock()
			d.stack.watch.err = d.broke
			d.stack.watch.mu.Unlock()
		} else {
			ev := d.ev
			ev.At = time.Now()
			d.stack.watch.fire(ev)
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(req.Duration):
	}
	if !req.Warmup {
		d.ended = time.Since(start)
	}
	return results.Measurement{Requests: 100, RPS: 10}, ctx.Err()
}

// oneCell is testSpec with a single cell and phases long enough to tell
// an early stop from a full one.
func oneCell() Spec {
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
	spec.Warmup, spec.Duration = Duration(2*time.Second), Duration(5*time.Second)
	return spec
}

func TestRunnerFailsCellWhoseStackChanged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, during string
		ev           results.StackEvent
		want         []string
	}{
		{"target restarted while measured", "measure",
			results.StackEvent{Service: "app", Target: true, Action: "die", Detail: "exit code 143"},
			[]string{"app (the target) exited (exit code 143)", "s into the measured phase"}},
		{"database paused during the warm-up", "warmup",
			results.StackEvent{Service: "db", Action: "pause"},
			[]string{"db was paused", "s into the warm-up"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The phase the change comes in lasts a minute, so a load that
			// ran on would show; before a change in the measured phase, a
			// warm-up of 4 s sets an event placed from the warm-up's start
			// apart from one placed from the measured phase's (0.05 s in),
			// both with seconds to spare on a loaded host.
			spec, before := oneCell(), time.Duration(0)
			spec.Warmup, spec.Duration = Duration(time.Minute), Duration(time.Minute)
			if tc.during == "measure" {
				before = 4 * time.Second
				spec.Warmup = Duration(before)
			}
			dir, stack := t.TempDir(), &fakeStack{}
			d := &changingDriver{stack: stack, during: tc.during, ev: tc.ev}
			start := time.Now()
			sum, err := (&Runner{Spec: spec, Dir: dir, Stack: stack, Driver: d}).Run(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			rec := sum.Records[0]
			for _, w := range tc.want {
				if rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, w) {
					t.Errorf("status %s reason %q, want failed saying %q", rec.Status, rec.Reason, w)
				}
			}
			if len(rec.Events) != 1 || rec.Events[0].Phase != tc.during || rec.Events[0].T < 0.04 || rec.Events[0].T > 2 {
				t.Errorf("events %+v, want one in %s about 0.05 s in", rec.Events, tc.during)
			}
			if took := time.Since(start); took > before+10*time.Second {
				t.Errorf("the cell took %s: the load did not stop at the change", took)
			}
			if !stack.watch.stopped {
				t.Error("the watch was not stopped")
			}
			disk, err := results.ReadRecord(filepath.Join(results.CellDir(dir, rec.Cell.ID, 1), results.ResultFile))
			if err != nil || len(disk.Events) != 1 || disk.Events[0].Service != tc.ev.Service {
				t.Errorf("result.json events %+v (%v), want the change", disk.Events, err)
			}
			if _, err := os.Stat(filepath.Join(results.CellDir(dir, rec.Cell.ID, 1), results.TargetLog)); err != nil {
				t.Errorf("no target.log: %v", err)
			}
		})
	}
}

func TestRunnerFailsCellWhoseWatchBroke(t *testing.T) {
	t.Parallel()
	stack := &fakeStack{}
	spec := oneCell()
	spec.Warmup, spec.Duration = 0, Duration(200*time.Millisecond)
	d := &changingDriver{stack: stack, during: "measure", broke: errors.New("event stream: EOF")}
	sum, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: stack, Driver: d}).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rec := sum.Records[0]; rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "watch the stack: event stream: EOF") {
		t.Errorf("status %s reason %q, want failed: the watch broke", rec.Status, rec.Reason)
	}
}

func TestDescribeEvents(t *testing.T) {
	t.Parallel()
	evs := []results.StackEvent{
		{Service: "db", Action: "die", Detail: "exit code 0", Phase: "measure", T: 2.04},
		{Service: "db", Action: "start", Phase: "measure", T: 2.61},
		{Service: "db", Action: "restart", Phase: "measure", T: 2.61},
		{Service: "app", Target: true, Action: "oom", Phase: "measure", T: 3},
	}
	want := "the stack changed during the load: db exited (exit code 0) 2.0 s into the measured phase; " +
		"db started 2.6 s into the measured phase; db restarted 2.6 s into the measured phase; 1 more in events"
	if got := describeEvents(evs); got != want {
		t.Errorf("describeEvents =\n%q, want\n%q", got, want)
	}
}

func TestPhaseStartsPlace(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC)
	var p phaseStarts
	p.mark("warmup", t0)
	p.mark("measure", t0.Add(10*time.Second))
	for _, tc := range []struct {
		at    time.Duration
		phase string
		t     float64
	}{{-time.Second, "warmup", 0}, {1500 * time.Millisecond, "warmup", 1.5}, {12 * time.Second, "measure", 2}} {
		ev := results.StackEvent{At: t0.Add(tc.at)}
		p.place(&ev)
		if ev.Phase != tc.phase || ev.T != tc.t {
			t.Errorf("at %s: phase %s t %.3f, want %s %.3f", tc.at, ev.Phase, ev.T, tc.phase, tc.t)
		}
	}
}

// TestJoinWatches: one watch of two changes when either does and
// returns both's events in time order.
func TestJoinWatches(t *testing.T) {
	t.Parallel()
	a, b := &fakeWatch{changed: make(chan struct{})}, &fakeWatch{changed: make(chan struct{})}
	j := JoinWatches(t.Context(), a, b)
	at := time.Now()
	b.fire(results.StackEvent{Service: "db", Action: "restart", At: at.Add(time.Second)})
	select {
	case <-j.Changed():
	case <-time.After(10 * time.Second):
		t.Fatal("no change 10 s after one watch's")
	}
	a.fire(results.StackEvent{Service: "app", Action: "die", At: at})
	evs, err := j.Stop(t.Context())
	if err != nil || len(evs) != 2 || evs[0].Service != "app" || evs[1].Service != "db" || !a.stopped || !b.stopped {
		t.Errorf("Stop = %+v, %v; both stopped: %t %t", evs, err, a.stopped, b.stopped)
	}
}
