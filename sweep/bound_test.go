package sweep

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func TestBounded(t *testing.T) {
	t.Parallel()
	const bound = 50 * time.Millisecond
	never := make(chan struct{}) // a call that accepts and never answers, whatever its context says
	t.Cleanup(func() { close(never) })
	for _, tc := range []struct {
		name    string
		f       func(context.Context) error
		timeout bool
	}{
		{"answers", func(context.Context) error { return nil }, false},
		{"fails on its own", func(context.Context) error { return errors.New("boom") }, false},
		{"honours the context", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }, true},
		{"ignores the context", func(context.Context) error { <-never; return nil }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bound := bound
			if !tc.timeout {
				bound = time.Minute // an answer at once must not race a bound a loaded host can stall past
			}
			err := Bounded(t.Context(), &CallTimeoutError{Call: "apply", Service: "app", Bound: bound}, tc.f)
			var te *CallTimeoutError
			if got := errors.As(err, &te); got != tc.timeout {
				t.Fatalf("error %v: a call timeout %v, want %v", err, got, tc.timeout)
			}
			if tc.timeout && (te.Call != "apply" || te.Service != "app" || te.Bound != bound ||
				!strings.Contains(err.Error(), "apply of service app: no answer within 50ms (the run's call timeout)")) {
				t.Errorf("error %q does not name the call, the service and the bound", err)
			}
		})
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Bounded(ctx, &CallTimeoutError{Call: "apply", Service: "app", Bound: time.Hour}, func(ctx context.Context) error { return ctx.Err() }); !errors.Is(err, context.Canceled) || errors.Is(err, ErrCallTimeout) {
		t.Errorf("a cancelled run: %v, want context.Canceled, not a timeout", err)
	}
}

// wedgedStack accepts the n-th Apply and never answers it, whatever its
// context says, as a dockerd wedged on a frozen container did; released
// at the test's end, it returns without touching the run directory and
// says so on left.
type wedgedStack struct {
	fakeStack
	n, calls int
	never    chan struct{}
	left     chan struct{}
}

func (w *wedgedStack) Apply(ctx context.Context, cfg TargetConfig) error {
	w.calls++
	if w.calls >= w.n {
		<-w.never
		close(w.left)
		return errors.New("released")
	}
	return w.fakeStack.Apply(ctx, cfg)
}

// TestRunnerBoundsAWedgedApply: an Apply that never answers fails its cell
// within the bound, naming the call, the service and the bound; the
// failure limit then stops the run with that reason, and the cell that
// finished before is kept. The bound is every call's, the first cell's
// answered ones too: 3 s is many times a loaded host's stalls (100 ms
// was not).
func TestRunnerBoundsAWedgedApply(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CallTimeout, spec.MaxFailures = Duration(3*time.Second), 1
	dir := t.TempDir()
	st := &wedgedStack{n: 2, never: make(chan struct{}), left: make(chan struct{})}
	t.Cleanup(func() { // before the run directory is removed; not forever if the test ended first
		close(st.never)
		select {
		case <-st.left:
		case <-time.After(10 * time.Second):
		}
	})
	r := &Runner{Spec: spec, Dir: dir, Stack: st, Driver: &fakeDriver{}}
	start := time.Now()
	sum, err := r.Run(t.Context())
	if took := time.Since(start); took > time.Minute {
		t.Fatalf("the run took %s", took)
	}
	if !errors.Is(err, ErrTooManyFailures) || len(sum.Records) != 2 {
		t.Fatalf("run: %v, %d records; want the failure limit after the second cell", err, len(sum.Records))
	}
	cells := spec.Cells()
	first, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cells[0].ID, 1), results.ResultFile))
	if err != nil || first.Status != results.StatusOK {
		t.Errorf("the first cell: %v, %+v; want it kept ok", err, first.Status)
	}
	second, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cells[1].ID, 1), results.ResultFile))
	want := "apply: apply of service app: no answer within 3s (the run's call timeout)"
	if err != nil || second.Status != results.StatusFailed || !strings.Contains(second.Reason, want) {
		t.Errorf("the wedged cell: %v, %s %q; want failed: %q", err, second.Status, second.Reason, want)
	}
}

// stuckAt is a stack, driver, monitor and hooks of the runner whose call
// named at accepts and never answers before its context ends; every
// other call answers as the fakes do.
type stuckAt struct {
	fakeStack
	at    string
	reads int // ReadBack calls
}

func (s *stuckAt) block(ctx context.Context, call string) error {
	if call != s.at {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (s *stuckAt) StartDeps(ctx context.Context, cfg TargetConfig, timeout time.Duration) error {
	return errors.Join(s.block(ctx, "start dependencies"), s.fakeStack.StartDeps(ctx, cfg, timeout))
}
func (s *stuckAt) Apply(ctx context.Context, cfg TargetConfig) error {
	return errors.Join(s.block(ctx, "apply"), s.fakeStack.Apply(ctx, cfg))
}
func (s *stuckAt) WaitReady(ctx context.Context, _ time.Duration) error {
	return s.block(ctx, "ready wait")
}
func (s *stuckAt) ReadBack(ctx context.Context) (results.Applied, error) {
	s.reads++
	call := "read back"
	if s.reads%2 == 0 {
		call = "read back before the load"
	}
	if err := s.block(ctx, call); err != nil {
		return results.Applied{}, err
	}
	return s.fakeStack.ReadBack(ctx)
}
func (s *stuckAt) Logs(ctx context.Context, n int) (string, error) {
	return "", s.block(ctx, "log read")
}
func (s *stuckAt) Watch(ctx context.Context) (StackWatch, error) {
	if err := s.block(ctx, "watch"); err != nil {
		return nil, err
	}
	w, _ := s.fakeStack.Watch(ctx)
	return &stuckWatch{w.(*fakeWatch), s}, nil
}
func (s *stuckAt) ProbeURL(ctx context.Context, _ string) error { return s.block(ctx, "URL probe") }

type stuckWatch struct {
	*fakeWatch
	s *stuckAt
}

func (w *stuckWatch) Stop(ctx context.Context) ([]results.StackEvent, error) {
	if err := w.s.block(ctx, "watch stop"); err != nil {
		return nil, err
	}
	return w.fakeWatch.Stop(ctx)
}

func (s *stuckAt) Name() string { return "fake" }
func (s *stuckAt) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, s.block(ctx, "warm-up load")
	}
	if err := s.block(ctx, "load"); err != nil {
		return results.Measurement{}, err
	}
	return results.Measurement{Requests: 100, RPS: 10, LatencyMS: results.Latency{P99: 5}}, nil
}

func (s *stuckAt) Start(ctx context.Context, _ Cell, _ string) error {
	return s.block(ctx, "samplers start")
}
func (s *stuckAt) Stop(context.Context, *results.Record, string, []results.Interval) error {
	return nil
}

// TestRunnerBoundsEveryCall: whichever call of a cell's lifecycle never
// answers, the runner goes on within its bound: a call of a cell fails
// the cell naming the call, the service and the bound, and the failure
// limit stops the run with it; a call before the first cell (the DSN
// checks, the connection limits, the URL probe) stops the run with it;
// the log read for the connection-pressure note only costs its bound.
func TestRunnerBoundsEveryCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stuck, call, within string
		abort, ok           bool
	}{
		{stuck: "start dependencies", within: "3s (the ready timeout and the run's call timeout)"},
		{stuck: "apply", within: "2s (the run's call timeout)"},
		{stuck: "ready wait", within: "3s (the ready timeout and the run's call timeout)"},
		{stuck: "read back", within: "2s (the run's call timeout)"},
		{stuck: "read back before the load", call: "read back", within: "2s (the run's call timeout)"},
		{stuck: "db reset", within: "2s (the run's call timeout)"},
		{stuck: "watch", within: "2s (the run's call timeout)"},
		{stuck: "warm-up load", within: "3s (the phase's length and the run's call timeout)"},
		{stuck: "samplers start", within: "2s (the run's call timeout)"},
		{stuck: "load", within: "3s (the phase's length and the run's call timeout)"},
		{stuck: "watch stop", within: "2s (the run's call timeout)"},
		{stuck: "prepare", within: "3s (the ready timeout and the run's call timeout)", abort: true},
		{stuck: "connection limits", within: "2s (the run's call timeout)", abort: true},
		{stuck: "URL probe", within: "2s (the run's call timeout)", abort: true},
		{stuck: "log read", ok: true},
	} {
		t.Run(tc.stuck, func(t *testing.T) {
			t.Parallel()
			// Every answered call of the run must beat the bound too: 2 s is
			// five times the stalls CI saw on a loaded host (100 ms was
			// within them), and 15 cases two at a time pay it.
			spec := testSpec()
			spec.CallTimeout, spec.MaxFailures = Duration(2*time.Second), 1
			s := &stuckAt{at: tc.stuck}
			r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: s, Driver: s, Monitor: s,
				Reset:   func(ctx context.Context) error { return s.block(ctx, "db reset") },
				Prepare: func(ctx context.Context) error { return s.block(ctx, "prepare") },
				Limits: func(ctx context.Context) (ConnLimits, error) {
					return ConnLimits{MaxConnections: 1000}, s.block(ctx, "connection limits")
				}}
			// a call left unbounded ends here, as an interrupted run
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			sum, err := r.Run(ctx)
			call := cmp.Or(tc.call, tc.stuck)
			want := call + " of service app: no answer within " + tc.within
			switch {
			case tc.ok:
				if err != nil || sum.Failed() != 0 || len(sum.Records) != 4 {
					t.Errorf("run: %v, %d records, %d failed; want every cell ok", err, len(sum.Records), sum.Failed())
				}
			case tc.abort:
				if !errors.Is(err, ErrCallTimeout) || errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), want) || len(sum.Records) != 0 {
					t.Errorf("run: %v, %d records; want it stopped before any cell: %q", err, len(sum.Records), want)
				}
			default:
				if !errors.Is(err, ErrTooManyFailures) || len(sum.Records) != 1 || !strings.Contains(sum.Records[0].Reason, want) {
					var reasons []string
					for _, rec := range sum.Records {
						reasons = append(reasons, string(rec.Status)+": "+rec.Reason)
					}
					t.Fatalf("run: %v, records %q; want the failure limit after a cell failed: %q", err, reasons, want)
				}
			}
		})
	}
}
