package sweep_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/memstack"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// laneDriver measures a fixed RPS per lane and notes which cells it ran.
type laneDriver struct {
	rps  float64
	mu   *sync.Mutex
	seen *[]string
}

func (d laneDriver) Name() string { return "fake" }
func (d laneDriver) Run(_ context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	if !req.Warmup {
		d.mu.Lock()
		*d.seen = append(*d.seen, req.Dir)
		d.mu.Unlock()
	}
	return results.Measurement{Requests: int64(d.rps * 10), RPS: d.rps, DurationS: 10,
		LatencyMS: results.Latency{P50: 1, P99: 5}}, nil
}

func TestLanes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	spec := sweep.Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", URL: srv.URL, ReadyPath: "/health", ReadyTimeout: sweep.Duration(time.Second),
		Duration: sweep.Duration(10 * time.Second), Load: sweep.LoadSpec{VUs: 2}, Driver: "builtin", Repeat: 1, Order: sweep.OrderGrid}
	dir := t.TempDir()
	var mu sync.Mutex
	var seen [2][]string
	lanes := &sweep.Lanes{Control: true}
	for k, rps := range []float64{100, 130} {
		lanes.Runners = append(lanes.Runners, &sweep.Runner{Spec: spec, Dir: dir, Stack: &memstack.Stack{},
			Driver: laneDriver{rps: rps, mu: &mu, seen: &seen[k]}})
	}
	jobs := sweep.Schedule(spec.Cells(), 1, sweep.OrderGrid, 0)
	sum, controls, err := lanes.Run(t.Context(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != len(jobs)+1 {
		t.Fatalf("%d records, want the %d jobs and one control", len(sum.Records), len(jobs))
	}
	if len(seen[0]) != 3 || len(seen[1]) != 2 {
		t.Errorf("lanes ran %d and %d phases, want 3 and 2 (control on both, then round robin)", len(seen[0]), len(seen[1]))
	}
	if !strings.HasSuffix(seen[1][0], jobs[0].Cell.ID+"/r2") {
		t.Errorf("lane 2's control went to %s, want the first cell's r2", seen[1][0])
	}
	spread, warn := sweep.ControlSpread(controls, 0.1)
	if len(controls) != 2 || spread < 0.25 || warn == "" {
		t.Errorf("controls %+v: spread %.2f, warning %q; want 2 controls 26 %% apart, flagged", controls, spread, warn)
	}
	if _, warn := sweep.ControlSpread(controls, 0.5); warn != "" {
		t.Errorf("flagged within tolerance: %s", warn)
	}
}
