package sweep_test

import (
	"context"
	"math"
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
	if len(controls) != 2 || controls[0].Lane != 1 || controls[1].Lane != 2 || controls[0].RPS != 100 || controls[1].RPS != 130 {
		t.Fatalf("controls %+v, want lane 1 at 100 rps and lane 2 at 130", controls)
	}
	spread, warn := sweep.ControlSpread(controls, 0.1)
	if len(controls) != 2 || spread < 0.25 || warn == "" {
		t.Errorf("controls %+v: spread %.2f, warning %q; want 2 controls 26 %% apart, flagged", controls, spread, warn)
	}
	if _, warn := sweep.ControlSpread(controls, 0.5); warn != "" {
		t.Errorf("flagged within tolerance: %s", warn)
	}
}

// TestControlSpread pins the spread (max − min over the mean of the ok
// controls), its sentence, and when there is nothing to compare.
func TestControlSpread(t *testing.T) {
	t.Parallel()
	ctl := func(lane int, rps float64, status results.Status) sweep.LaneControl {
		return sweep.LaneControl{Lane: lane, RPS: rps,
			Rec: results.Record{Status: status, Cell: results.CellInfo{ID: "cpu_1__web_2__db_4"}}}
	}
	ok, failed := results.StatusOK, results.StatusFailed
	for _, c := range []struct {
		name     string
		controls []sweep.LaneControl
		tol      float64
		spread   float64
		warn     string
	}{
		{"two lanes 20 % apart", []sweep.LaneControl{ctl(1, 90, ok), ctl(2, 110, ok)}, 0.1, 0.2,
			"the lanes measured the control cell cpu_1__web_2__db_4 20 % apart in RPS (90 to 110), more than the 10 % their cells can be compared at: the nodes are not equal"},
		{"at the tolerance", []sweep.LaneControl{ctl(1, 90, ok), ctl(2, 110, ok)}, 0.2, 0.2, ""},
		{"three lanes", []sweep.LaneControl{ctl(1, 100, ok), ctl(2, 80, ok), ctl(3, 120, ok)}, 0.5, 0.4, ""},
		{"a failed lane is left out", []sweep.LaneControl{ctl(1, 100, ok), ctl(2, 1, failed), ctl(3, 100, ok)}, 0.1, 0, ""},
		{"one ok lane", []sweep.LaneControl{ctl(1, 100, ok), ctl(2, 50, failed)}, 0.1, 0, ""},
		{"nothing measured", []sweep.LaneControl{ctl(1, 0, ok), ctl(2, 0, ok)}, 0.1, 0, ""},
	} {
		spread, warn := sweep.ControlSpread(c.controls, c.tol)
		if math.Abs(spread-c.spread) > 1e-12 || warn != c.warn {
			t.Errorf("%s: spread %v %q, want %v %q", c.name, spread, warn, c.spread, c.warn)
		}
	}
}

// TestLanesControlRepetitions: with repetitions the control's extra
// measurements take repetition numbers after the last, never one the
// schedule measures; lanes that recorded nothing (a run stopped before
// its first cell) give no control and no panic.
func TestLanesControlRepetitions(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	spec := sweep.Spec{CPUs: []float64{1}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", URL: srv.URL, ReadyPath: "/health", ReadyTimeout: sweep.Duration(time.Second),
		Duration: sweep.Duration(10 * time.Second), Load: sweep.LoadSpec{VUs: 2}, Driver: "builtin", Repeat: 2, Order: sweep.OrderGrid}
	var mu sync.Mutex
	var seen [2][]string
	lanes := &sweep.Lanes{Control: true}
	for k := range 2 {
		lanes.Runners = append(lanes.Runners, &sweep.Runner{Spec: spec, Dir: t.TempDir(), Stack: &memstack.Stack{},
			Driver: laneDriver{rps: 100, mu: &mu, seen: &seen[k]}})
	}
	jobs := sweep.Schedule(spec.Cells(), 2, sweep.OrderGrid, 0)
	if _, _, err := lanes.Run(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	first := jobs[0].Cell.ID
	if !strings.HasSuffix(seen[0][0], first+"/r1") || !strings.HasSuffix(seen[1][0], first+"/r3") {
		t.Errorf("controls measured at %s and %s, want %s r1 on lane 1 and r3 (after the last repetition) on lane 2",
			seen[0][0], seen[1][0], first)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	sum, controls, _ := lanes.Run(ctx, jobs)
	if len(sum.Records) != 0 || len(controls) != 0 {
		t.Errorf("a cancelled run: %d records, %d controls; want none", len(sum.Records), len(controls))
	}
}
