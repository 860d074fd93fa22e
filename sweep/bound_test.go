package sweep

import (
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
			err := bounded(t.Context(), "apply", "app", bound, tc.f)
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
	if err := bounded(ctx, "apply", "app", time.Hour, func(ctx context.Context) error { return ctx.Err() }); !errors.Is(err, context.Canceled) || errors.Is(err, ErrCallTimeout) {
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
// finished before is kept.
func TestRunnerBoundsAWedgedApply(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CallTimeout, spec.MaxFailures = Duration(100*time.Millisecond), 1
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
	want := "apply: apply of service app: no answer within 100ms (the run's call timeout)"
	if err != nil || second.Status != results.StatusFailed || !strings.Contains(second.Reason, want) {
		t.Errorf("the wedged cell: %v, %s %q; want failed: %q", err, second.Status, second.Reason, want)
	}
}
