// Package boundtest is the runner-level check each backend's tests make
// of a platform that accepts a call and never answers (issue 38): with
// the backend's real Stack over a fake engine, API server or CLI whose
// second Apply never answers, the cell fails within the call timeout
// naming the call, the service and the bound, the run stops at the
// failure limit with that reason, the finished cell's record is kept, and
// a resume over an answering platform goes on from there. The backends'
// tests bring the stack; the spec, the driver and the verdict are here,
// one for all of them.
package boundtest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// CallTimeout is a short call timeout, so a wedged call costs a test
// little (a stack whose calls start processes needs more on a loaded
// host); the checks on time are loose.
const CallTimeout = 200 * time.Millisecond

// Call runs call with a context that ends after CallTimeout, as a
// backend's call meets a platform that never answers, and checks that it
// returns with an error that wraps the context's end and names what it
// was doing (want). The test fails when call has not returned 30 s after
// that end (a compose CLI gets SIGTERM at the end and a kill 5 s later).
func Call(t *testing.T, want string, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), CallTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v; want the end of the context, saying %q", err, want)
		}
	case <-time.After(CallTimeout + 30*time.Second):
		t.Fatal("the call did not return 30 s after its context ended")
	}
}

// Target is the URL of a target that answers every request, 200, until
// the test ends.
func Target(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Spec is a grid of four cells on service app (web threads W, pool P,
// cell id N), the load at url, a ready timeout of ready and a call
// timeout of call, no warm-up, stopping at the first failed cell.
func Spec(url string, ready, call time.Duration) sweep.Spec {
	return sweep.Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", NameEnv: "N", URL: url, ReadyPath: "/health",
		ReadyTimeout: sweep.Duration(ready), Duration: sweep.Duration(time.Second),
		Load: sweep.LoadSpec{VUs: 3}, Driver: "builtin", Repeat: 1, Order: sweep.OrderGrid,
		CallTimeout: sweep.Duration(call), MaxFailures: 1}
}

// Driver measures every phase at once, as a load the target served.
type Driver struct{}

// Name is "fake".
func (Driver) Name() string { return "fake" }

// Run returns a measurement the runner's checks pass.
func (Driver) Run(ctx context.Context, _ sweep.LoadRequest) (results.Measurement, error) {
	return results.Measurement{Requests: 100, RPS: 10, LatencyMS: results.Latency{P99: 5}}, ctx.Err()
}

// WedgedApply runs spec over stack in dir, whose second Apply never
// answers, and checks that the run stops within a minute at the failure
// limit, the second cell failed naming the apply, the service and the
// bound, and the first cell's record is kept, ok.
func WedgedApply(t *testing.T, spec sweep.Spec, stack sweep.Stack, dir string) {
	t.Helper()
	r := &sweep.Runner{Spec: spec, Dir: dir, Stack: stack, Driver: Driver{}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a wedge left unbounded ends here
	defer cancel()
	sum, err := r.Run(ctx)
	if !errors.Is(err, sweep.ErrTooManyFailures) || len(sum.Records) != 2 {
		t.Fatalf("run: %v, records %q; want the failure limit after the second cell", err, reasons(sum.Records))
	}
	cells := spec.Cells()
	first := record(t, dir, cells[0].ID)
	if first.Status != results.StatusOK {
		t.Errorf("the first cell: %s %q; want it kept ok", first.Status, first.Reason)
	}
	second := record(t, dir, cells[1].ID)
	want := fmt.Sprintf("apply: apply of service app: no answer within %s (the run's call timeout)", spec.CallLimit())
	if second.Status != results.StatusFailed || !strings.Contains(second.Reason, want) {
		t.Errorf("the wedged cell: %s %q; want failed: %q", second.Status, second.Reason, want)
	}
}

// Resume runs spec again in dir over stack, answering by now: the two
// cells of WedgedApply are done and the other two run, ok.
func Resume(t *testing.T, spec sweep.Spec, stack sweep.Stack, dir string) {
	t.Helper()
	r := &sweep.Runner{Spec: spec, Dir: dir, Stack: stack, Driver: Driver{}}
	sum, err := r.Run(t.Context())
	if err != nil || sum.Skipped != 2 || len(sum.Records) != 2 || sum.Failed() != 0 {
		t.Fatalf("resume: %v, %d skipped, records %q; want the last two cells run, ok", err, sum.Skipped, reasons(sum.Records))
	}
	if first := record(t, dir, spec.Cells()[0].ID); first.Status != results.StatusOK {
		t.Errorf("the first cell after the resume: %s %q", first.Status, first.Reason)
	}
}

func record(t *testing.T, dir, cell string) results.Record {
	t.Helper()
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cell, 1), results.ResultFile))
	if err != nil {
		t.Fatalf("cell %s: %v", cell, err)
	}
	return rec
}

// reasons are each record's status and reason.
func reasons(recs []results.Record) []string {
	out := make([]string, len(recs))
	for i, rec := range recs {
		out[i] = string(rec.Status) + ": " + rec.Reason
	}
	return out
}
