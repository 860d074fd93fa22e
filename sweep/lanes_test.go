package sweep_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/memstack"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// laneDriver measures a fixed RPS per lane and notes which phases it
// measured (their folders, relative to the run). Outside a control, a
// measured phase first closes started (once) and waits for gate; once
// the driver measured closeAt phases it closes done. With fail, every
// phase fails.
type laneDriver struct {
	rps     float64
	mu      *sync.Mutex
	seen    *[]string
	run     string
	started chan struct{}
	gate    chan struct{}
	done    chan struct{}
	closeAt int
	once    *sync.Once
	fail    bool
}

func (d laneDriver) Name() string { return "fake" }
func (d laneDriver) Run(ctx context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	if d.fail {
		return results.Measurement{}, errors.New("no answer")
	}
	if req.Warmup {
		return results.Measurement{}, nil
	}
	rel, _ := filepath.Rel(d.run, req.Dir)
	if !strings.Contains(rel, "control") {
		if d.started != nil {
			d.once.Do(func() { close(d.started) })
		}
		if d.gate != nil {
			select {
			case <-d.gate:
			case <-ctx.Done():
				return results.Measurement{}, ctx.Err()
			}
		}
	}
	d.mu.Lock()
	*d.seen = append(*d.seen, filepath.ToSlash(rel))
	if d.closeAt > 0 && len(*d.seen) == d.closeAt {
		close(d.done)
	}
	d.mu.Unlock()
	return results.Measurement{Requests: int64(d.rps * 10), RPS: d.rps, DurationS: req.Duration.Seconds(),
		LatencyMS: results.Latency{P50: 1, P99: 5}}, nil
}

// laneSpec is a grid of 4 cells (CPUs 1, 2 × web 1, 2) measured for 20 s
// after a 2 s warm-up.
func laneSpec(url string) sweep.Spec {
	return sweep.Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", URL: url, ReadyPath: "/health", ReadyTimeout: sweep.Duration(time.Second),
		Warmup: sweep.Duration(2 * time.Second), Duration: sweep.Duration(20 * time.Second),
		Load: sweep.LoadSpec{VUs: 2}, Driver: "builtin", Repeat: 1, Order: sweep.OrderGrid}
}

// TestLanes runs 4 cells on 2 lanes with the control, lane 2 a slow node
// (its first cell waits until lane 1 measured 4 phases; lane 1 waits
// for it to take that cell): both lanes
// measure the first cell's control (5 s, a quarter of 20 s, at least
// 5 s) filed apart, lane 1 then that cell's r1 on a target applied
// again for it, as every job is, and the queue gives lane 1 the cells
// the slow lane 2 could not take.
func TestLanes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	spec := laneSpec(srv.URL)
	dir := t.TempDir()
	var mu sync.Mutex
	var seen [2][]string
	took, measured4 := make(chan struct{}), make(chan struct{})
	lanes := &sweep.Lanes{Control: true}
	var stacks [2]*memstack.Stack
	for k, d := range []laneDriver{
		{rps: 100, gate: took, done: measured4, closeAt: 4},
		{rps: 130, started: took, gate: measured4, once: &sync.Once{}},
	} {
		d.mu, d.seen, d.run = &mu, &seen[k], dir
		stacks[k] = &memstack.Stack{}
		lanes.Runners = append(lanes.Runners, &sweep.Runner{Spec: spec, Dir: dir, Stack: stacks[k], Driver: d})
	}
	jobs := sweep.Schedule(spec.Cells(), 1, sweep.OrderGrid, 0)
	sum, controls, err := lanes.Run(t.Context(), jobs)
	if err != nil {
		t.Fatal(err)
	}
	id := func(i int) string { return "cells/" + jobs[i].Cell.ID }
	// Lane 2 took one queued cell (whichever was next when its control
	// ended) and held it; lane 1 took the others in the schedule's order.
	want := [2][]string{{id(0) + "/control1", id(0) + "/r1"}, {id(0) + "/control2"}}
	for i := 1; i < 4; i++ {
		k := 0
		if len(seen[1]) == 2 && seen[1][1] == id(i)+"/r1" {
			k = 1
		}
		want[k] = append(want[k], id(i)+"/r1")
	}
	if !slices.Equal(seen[0], want[0]) || !slices.Equal(seen[1], want[1]) || len(seen[1]) != 2 {
		t.Errorf("lanes measured\n%q\n%q\nwant\n%q\n%q", seen[0], seen[1], want[0], want[1])
	}
	if len(sum.Records) != 4 {
		t.Fatalf("%d records, want the 4 jobs' (the controls apart)", len(sum.Records))
	}
	for k, st := range stacks {
		var applied []string
		for _, a := range st.Applied {
			rel, _ := filepath.Rel(dir, a)
			applied = append(applied, filepath.ToSlash(rel))
		}
		if !slices.Equal(applied, seen[k]) {
			t.Errorf("lane %d applied %q for the jobs it measured, %q: want one apply per job", k+1, applied, seen[k])
		}
	}
	for _, rec := range sum.Records {
		_, applied := rec.PhasesS["apply"]
		if rec.Control != 0 || rec.Repetition != 1 || !applied || rec.DurationS != 20 {
			t.Errorf("%s: control %d, r%d, applied %v, %g s; want r1 of 20 s, applied",
				rec.Cell.ID, rec.Control, rec.Repetition, applied, rec.DurationS)
		}
	}
	if len(controls) != 2 || controls[0].Lane != 1 || controls[1].Lane != 2 || controls[0].RPS != 100 || controls[1].RPS != 130 {
		t.Fatalf("controls %+v, want lane 1 at 100 rps and lane 2 at 130", controls)
	}
	for _, c := range controls {
		if c.Rec.Control != c.Lane || c.Rec.Repetition != 0 || c.Rec.DurationS != 5 || c.Rec.Cell.ID != jobs[0].Cell.ID {
			t.Errorf("lane %d's control: control %d, r%d, %g s, cell %s; want the first cell for 5 s, no repetition",
				c.Lane, c.Rec.Control, c.Rec.Repetition, c.Rec.DurationS, c.Rec.Cell.ID)
		}
	}
	spread, warn := sweep.ControlSpread(controls, 0.1)
	if spread < 0.25 || warn == "" {
		t.Errorf("controls %+v: spread %.2f, warning %q; want 26 %% apart, flagged", controls, spread, warn)
	}
	if _, warn := sweep.ControlSpread(controls, 0.5); warn != "" {
		t.Errorf("flagged within tolerance: %s", warn)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	lanes.Runners[0].Dir, lanes.Runners[1].Dir = t.TempDir(), t.TempDir()
	sum, controls, err = lanes.Run(ctx, jobs)
	if len(sum.Records) != 0 || len(controls) != 0 || !errors.Is(err, sweep.ErrInterrupted) {
		t.Errorf("a cancelled run: %d records, %d controls, %v; want none, interrupted", len(sum.Records), len(controls), err)
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

// TestControlDuration pins the control's length: a quarter of the
// cells' measured phase, at least 5 s, never longer than the cells'.
func TestControlDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]time.Duration{
		time.Second: time.Second, 5 * time.Second: 5 * time.Second, 10 * time.Second: 5 * time.Second,
		20 * time.Second: 5 * time.Second, 30 * time.Second: 7500 * time.Millisecond, 5 * time.Minute: 75 * time.Second,
	} {
		if got := sweep.ControlDuration(d); got != want {
			t.Errorf("ControlDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

// TestDeal pins what each lane runs before the queue: with the control
// on 3 lanes, each lane's control of the first job's cell (the spec's
// warm-up, a quarter of its duration, no steady-state stop, no
// repetition, filed as control<lane>), then on lane 1 the first job;
// the queue is the rest in order. Without the control, or with one
// lane, every job is in the queue.
func TestDeal(t *testing.T) {
	t.Parallel()
	spec := laneSpec("http://x")
	spec.Precision, spec.MinDuration = 0.02, sweep.Duration(10*time.Second)
	jobs := sweep.Schedule(spec.Cells(), 2, sweep.OrderInterleave, 0)
	first, queue := sweep.Deal([]sweep.Spec{spec, spec, spec}, jobs, true)
	if len(first) != 3 || len(first[0]) != 2 || len(first[1]) != 1 || len(first[2]) != 1 {
		t.Fatalf("first %+v, want a control per lane and lane 1 the first job", first)
	}
	if !reflect.DeepEqual(first[0][1], jobs[0]) || !reflect.DeepEqual(queue, jobs[1:]) {
		t.Errorf("lane 1 then %+v, queue %d jobs; want the first job, then the other %d in order", first[0][1], len(queue), len(jobs)-1)
	}
	for k := range 3 {
		c := first[k][0]
		want := sweep.Fidelity{Warmup: 2 * time.Second, Duration: 5 * time.Second}
		if c.Cell.ID != jobs[0].Cell.ID || c.Rep != 0 || c.Control != k+1 || c.Screening || c.Fidelity == nil || *c.Fidelity != want ||
			c.Label() != fmt.Sprint("control", k+1) || first[0][1].Label() != "r1" ||
			c.Dir("run") != filepath.Join("run", "cells", jobs[0].Cell.ID, fmt.Sprint("control", k+1)) {
			t.Errorf("lane %d's control %+v (fidelity %+v), dir %s", k+1, c, c.Fidelity, c.Dir("run"))
		}
	}
	for name, lanes := range map[string]int{"no control": 3, "one lane": 1} {
		specs := slices.Repeat([]sweep.Spec{spec}, lanes)
		first, queue := sweep.Deal(specs, jobs, name == "one lane")
		if len(first) != lanes || slices.ContainsFunc(first, func(js []sweep.Job) bool { return len(js) > 0 }) || !reflect.DeepEqual(queue, jobs) {
			t.Errorf("%s: first %+v, queue %d; want nothing first and every job queued", name, first, len(queue))
		}
	}
}

// TestLanesMaxFailures: --max-failures counts over all lanes and stops
// every lane; with 1, both controls (measured at once) fail and no lane
// takes a job after them.
func TestLanesMaxFailures(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	spec := laneSpec(srv.URL)
	spec.MaxFailures = 1
	dir := t.TempDir()
	var mu sync.Mutex
	var seen []string
	lanes := &sweep.Lanes{Control: true}
	for range 2 {
		lanes.Runners = append(lanes.Runners, &sweep.Runner{Spec: spec, Dir: dir, Stack: &memstack.Stack{},
			Driver: laneDriver{mu: &mu, seen: &seen, run: dir, fail: true}})
	}
	sum, controls, err := lanes.Run(t.Context(), sweep.Schedule(spec.Cells(), 1, sweep.OrderGrid, 0))
	if !errors.Is(err, sweep.ErrTooManyFailures) || len(sum.Records) != 0 || len(controls) != 2 ||
		controls[0].Rec.Status != results.StatusFailed || controls[1].Rec.Status != results.StatusFailed {
		t.Errorf("err %v, %d records, controls %+v; want too many failures after the 2 failed controls", err, len(sum.Records), controls)
	}
}

// TestLanesGiveBack: a lane that stops (its stack's first start failed)
// leaves what it was to run to the others: lane 2 measures its control,
// then the first cell lane 1 would have measured, then the rest in order.
func TestLanesGiveBack(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(srv.Close)
	spec := laneSpec(srv.URL)
	dir := t.TempDir()
	var mu sync.Mutex
	var seen [2][]string
	lanes := &sweep.Lanes{Control: true}
	for k := range 2 {
		lanes.Runners = append(lanes.Runners, &sweep.Runner{Spec: spec, Dir: dir, Stack: &memstack.Stack{},
			Driver: laneDriver{rps: 100, mu: &mu, seen: &seen[k], run: dir}})
	}
	lanes.Runners[0].Prepare = func(context.Context) error { return errors.New("no database") }
	jobs := sweep.Schedule(spec.Cells(), 1, sweep.OrderGrid, 0)
	sum, controls, err := lanes.Run(t.Context(), jobs)
	want := []string{"cells/" + jobs[0].Cell.ID + "/control2"}
	for _, j := range jobs {
		want = append(want, "cells/"+j.Cell.ID+"/r1")
	}
	if err == nil || !strings.Contains(err.Error(), "no database") || len(seen[0]) != 0 || !slices.Equal(seen[1], want) ||
		len(sum.Records) != 4 || len(controls) != 1 || controls[0].Lane != 2 {
		t.Errorf("err %v, lane 1 %q, lane 2 %q, %d records, controls %+v; want lane 1's error, lane 2 measuring %q",
			err, seen[0], seen[1], len(sum.Records), controls, want)
	}
}
