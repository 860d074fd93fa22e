package live

import (
	"maps"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/sweep-tool/sweep/metrics/live/livetest"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// clock is a hand-moved time for the ETA.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// want is a scrape's expected series of the families it names; a family
// named with no series must be absent.
type want map[string]map[string]float64

func check(t *testing.T, url, step string, w want) {
	t.Helper()
	fams := livetest.Scrape(t, url)
	for name, ws := range w {
		if got := livetest.Series(fams, name); !maps.Equal(got, ws) {
			t.Errorf("%s: %s = %v, want %v\nscrape:\n%s", step, name, got, ws, livetest.Show(fams))
		}
	}
}

var (
	jobA = sweep.Job{Cell: sweep.Cell{ID: "cpu_1__web_2__db_4"}, Rep: 1}
	jobB = sweep.Job{Cell: sweep.Cell{ID: "cpu_2__web_4__db_8"}, Rep: 1}
)

const labelsA = "cell=cpu_1__web_2__db_4,repetition=1"

// TestMetricsFollowTheRun feeds the metrics a run's events as the runner
// sends them and checks every series after each step: values, label
// sets, and that old label sets are gone.
func TestMetricsFollowTheRun(t *testing.T) {
	t.Parallel()
	clk := &clock{t: time.Date(2026, 1, 1, 22, 0, 0, 0, time.UTC)}
	m := New()
	m.now = clk.now
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	none := map[string]float64{}

	m.Begin(4, 1)
	check(t, srv.URL, "begin", want{"sweep_cells_planned": {"": 4}, "sweep_cells_done": {"": 1},
		"sweep_cells_failed_total": {"": 0}, "sweep_eta_seconds": none, "sweep_cell_info": none})

	m.Phase(jobA, "apply")
	m.Phase(jobA, "warmup")
	check(t, srv.URL, "warm-up", want{"sweep_cell_info": {"cell=cpu_1__web_2__db_4,phase=warmup,repetition=1": 1}})

	m.Phase(jobA, "measure")
	m.Interval(jobA, results.Interval{T: 1, Requests: 500, Errors: 5, P99MS: 12.5})
	m.Sample(jobA, sweep.Sample{Target: &results.ContainerSample{T: 1, CPUPctOfLimit: 87.5}})
	m.Sample(jobA, sweep.Sample{DB: &results.DBSample{T: 1, Total: 9, Active: 4}})
	check(t, srv.URL, "first second", want{"sweep_cell_info": {"cell=cpu_1__web_2__db_4,phase=measure,repetition=1": 1},
		"sweep_requests_per_second": {labelsA: 500}, "sweep_error_ratio": {labelsA: 0.01},
		"sweep_latency_p99_seconds": {labelsA: 0.0125}, "sweep_target_cpu_ratio": {labelsA: 0.875},
		"sweep_db_sessions": {labelsA: 9}, "sweep_db_sessions_active": {labelsA: 4}})

	// A short second: its rate is over its own 0.5 s; no p99 told, no
	// database answer, and a stray interval of another cell.
	m.Interval(jobA, results.Interval{T: 1.5, Requests: 300})
	m.Sample(jobA, sweep.Sample{DB: &results.DBSample{T: 2, Missing: true}})
	m.Interval(jobB, results.Interval{T: 1, Requests: 7})
	check(t, srv.URL, "short second", want{"sweep_requests_per_second": {labelsA: 600},
		"sweep_error_ratio": {labelsA: 0}, "sweep_latency_p99_seconds": none, "sweep_target_cpu_ratio": {labelsA: 0.875},
		"sweep_db_sessions": none, "sweep_db_sessions_active": none})

	m.Interval(jobA, results.Interval{T: 2.5})
	check(t, srv.URL, "second without requests", want{"sweep_requests_per_second": {labelsA: 0}, "sweep_error_ratio": none})

	clk.t = clk.t.Add(40 * time.Second)
	m.Done(jobA, results.Record{Status: results.StatusFailed})
	m.Sample(jobA, sweep.Sample{Target: &results.ContainerSample{CPUPctOfLimit: 10}}) // late: dropped
	check(t, srv.URL, "done", want{"sweep_cells_done": {"": 2}, "sweep_cells_failed_total": {"": 1},
		"sweep_eta_seconds": {"": 80}, "sweep_cell_info": none, "sweep_requests_per_second": none,
		"sweep_target_cpu_ratio": none})

	m.Phase(jobB, "apply")
	check(t, srv.URL, "next cell", want{"sweep_cell_info": {"cell=cpu_2__web_4__db_8,phase=apply,repetition=1": 1}})
	clk.t = clk.t.Add(20 * time.Second)
	m.Done(jobB, results.Record{Status: results.StatusOK})
	check(t, srv.URL, "ok cell", want{"sweep_cells_done": {"": 3}, "sweep_cells_failed_total": {"": 1},
		"sweep_eta_seconds": {"": 30}})
}

// TestSecondsClearedOutsideTheMeasuredPhase: a safe-limit search measures
// one cell at several levels; between them (warm-up of the next level)
// the previous level's seconds are gone.
func TestSecondsClearedOutsideTheMeasuredPhase(t *testing.T) {
	t.Parallel()
	m := New()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	m.Begin(1, 0)
	m.Phase(jobA, "measure")
	m.Interval(jobA, results.Interval{T: 1, Requests: 50, P99MS: 3})
	check(t, srv.URL, "level 1", want{"sweep_requests_per_second": {labelsA: 50}})
	m.Phase(jobA, "warmup")
	check(t, srv.URL, "level 2 warm-up", want{"sweep_requests_per_second": {}, "sweep_latency_p99_seconds": {},
		"sweep_cell_info": {"cell=cpu_1__web_2__db_4,phase=warmup,repetition=1": 1}})
	m.Phase(jobA, "measure")
	m.Interval(jobA, results.Interval{T: 1, Requests: 80})
	check(t, srv.URL, "level 2", want{"sweep_requests_per_second": {labelsA: 80}})
}

// TestMetricsPassPromLint: names, units and help texts as Prometheus's
// own linter wants them, with every family present.
func TestMetricsPassPromLint(t *testing.T) {
	t.Parallel()
	m := everyFamily()
	problems, err := testutil.GatherAndLint(m.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	if n, err := testutil.GatherAndCount(m.Registry()); err != nil || n != 11 {
		t.Errorf("%d series (%v), want 11: every family present once", n, err)
	}
}

// everyFamily returns metrics fed so that every family has a series: one
// cell failed, the next in its measured phase with every reading.
func everyFamily() *Metrics {
	m := New()
	m.Begin(2, 0)
	m.Phase(jobA, "apply")
	m.Done(jobA, results.Record{Status: results.StatusFailed})
	m.Phase(jobB, "measure")
	m.Interval(jobB, results.Interval{T: 1, Requests: 5, Errors: 1, P99MS: 2})
	m.Sample(jobB, sweep.Sample{Target: &results.ContainerSample{CPUPctOfLimit: 50}})
	m.Sample(jobB, sweep.Sample{DB: &results.DBSample{Total: 3, Active: 1}})
	return m
}
