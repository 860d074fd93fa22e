package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/pressure"
)

// closedDriver models a closed load on a target that answers each request
// in targetMS: each of the VUs sends a request, waits for the answer, then
// spends overheadMS before it sends the next (a driver slowed by its own
// CPU cost or by waiting for a CPU). It counts that wait in the latency it
// reports, as a driver that timestamps a request once it gets to it does,
// so its Little's ratio stays 1 however slow it is. Each second's rate
// wobbles by ±1 %, alternately.
type closedDriver struct {
	name                 string
	targetMS, overheadMS float64
	seconds              int
}

func (d closedDriver) Name() string { return d.name }
func (d closedDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	latency := d.targetMS + d.overheadMS
	rate := float64(req.Load.VUs) * 1000 / latency
	if req.Warmup {
		return results.Measurement{}, nil
	}
	var total int64
	for s := 1; s <= d.seconds; s++ {
		n := int64(math.Round(rate * (1 + 0.01*float64(1-2*(s%2)))))
		total += n
		if req.Interval != nil {
			req.Interval(results.Interval{T: float64(s), Requests: n, P99MS: 2 * latency})
		}
	}
	secs := float64(d.seconds)
	return results.Measurement{Requests: total, RPS: float64(total) / secs, DurationS: secs,
		LatencyMS: results.Latency{Avg: latency, P99: 2 * latency}}, nil
}

func TestGeneratorHook(t *testing.T) {
	t.Parallel()
	builtin := closedDriver{name: "builtin", targetMS: 2, overheadMS: 0.02, seconds: 5}
	cases := []struct {
		name    string
		chosen  closedDriver
		limited bool
	}{
		// The slowed driver spends 1 ms between requests: a third fewer
		// requests reach the target, and its own figures do not show it.
		{"slowed driver", closedDriver{name: "k6", targetMS: 2, overheadMS: 1, seconds: 5}, true},
		{"driver as fast as the reference", closedDriver{name: "k6", targetMS: 2, overheadMS: 0.03, seconds: 5}, false},
		{"the built-in driver itself", builtin, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
			var got GeneratorCheck
			r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: c.chosen}
			r.Measure = GeneratorHook(r, builtin, func(gc GeneratorCheck) error { got = gc; return gc.Write(r.Dir) })
			sum, err := r.Run(t.Context())
			if err != nil || len(sum.Records) != 1 || sum.Records[0].Status != results.StatusOK {
				t.Fatalf("run: %v, records %+v", err, sum.Records)
			}
			rec := sum.Records[0]
			if got.Limited != c.limited || (got.Warning != "") != c.limited {
				t.Errorf("limited %v warning %q, want limited %v\n%s", got.Limited, got.Warning, c.limited, got.Text())
			}
			if c.limited && !strings.Contains(got.Warning, "the load generator, not the target") {
				t.Errorf("warning %q does not name the generator", got.Warning)
			}
			if math.Abs(*got.Chosen.LittlesRatio-1) > 0.01 || rec.Load.Driver != c.chosen.name || rec.RPS != got.Chosen.RPS {
				t.Errorf("the cell keeps the chosen driver's figures: littles %v, driver %s, rps %v vs %v",
					*got.Chosen.LittlesRatio, rec.Load.Driver, rec.RPS, got.Chosen.RPS)
			}
			if c.limited != strings.Contains(strings.Join(rec.Warnings, "\n"), "load generator") {
				t.Errorf("cell warnings %q", rec.Warnings)
			}
			if text := got.Text(); !strings.Contains(text, "reference builtin  ok") || !strings.Contains(text, "chosen    "+c.chosen.name) {
				t.Errorf("text does not show both runs by role:\n%s", text)
			}
			var onDisk GeneratorCheck
			data, err := os.ReadFile(filepath.Join(r.Dir, GeneratorCheckFile))
			if err != nil || json.Unmarshal(data, &onDisk) != nil || onDisk.Limited != c.limited || onDisk.Reference.Driver != "builtin" {
				t.Errorf("generator-check.json: %v %s", err, data)
			}
		})
	}
}

func TestCompareGenerators(t *testing.T) {
	t.Parallel()
	hw := func(x float64) *float64 { return &x }
	run := func(driver string, rps float64, half *float64) GeneratorRun {
		return GeneratorRun{Driver: driver, Status: results.StatusOK, RPS: rps, RPSHalfWidth: half}
	}
	cell := results.CellInfo{ID: "cpu_1__web_2__db_4"}
	cases := []struct {
		name           string
		chosen, ref    GeneratorRun
		limited        bool
		gapPct         float64
		warningContain string
	}{
		{"beyond noise", run("k6", 800, hw(20)), run("builtin", 1000, hw(20)), true, 20, "20 % below the builtin"},
		{"within noise", run("k6", 900, hw(80)), run("builtin", 1000, hw(80)), false, 10, ""},
		{"significant but under 5 %", run("k6", 970, hw(2)), run("builtin", 1000, hw(2)), false, 3, ""},
		{"chosen faster", run("k6", 1100, hw(20)), run("builtin", 1000, hw(20)), false, -10, ""},
		{"unknown noise, 10 %", run("k6", 900, nil), run("builtin", 1000, nil), false, 10, ""},
		{"unknown noise, 25 %", run("k6", 750, nil), run("builtin", 1000, hw(5)), true, 25, "another node"},
		{"same driver twice", run("builtin", 700, hw(10)), run("builtin", 1000, hw(10)), true, 30, "too busy"},
		{"reference failed", run("k6", 100, hw(1)), GeneratorRun{Driver: "builtin", Status: results.StatusFailed}, false, 0, ""},
		{"reference measured nothing", run("k6", 0, hw(1)), run("builtin", 0, hw(1)), false, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := CompareGenerators(cell, c.chosen, c.ref)
			if got.Limited != c.limited || math.Abs(got.GapPct-c.gapPct) > 1e-9 || !strings.Contains(got.Warning, c.warningContain) {
				t.Errorf("got limited %v gap %v warning %q; want %v, %v, containing %q",
					got.Limited, got.GapPct, got.Warning, c.limited, c.gapPct, c.warningContain)
			}
		})
	}
}

func TestPerSecondRPSLeavesOutThePartialSecond(t *testing.T) {
	t.Parallel()
	ivs := []results.Interval{{T: 1, Requests: 100}, {T: 2, Requests: 110}, {T: 3, Requests: 90}, {T: 3.2, Requests: 5}}
	mean, half := perSecondRPS(ivs)
	if mean != 100 || math.IsNaN(half) || half <= 0 {
		t.Errorf("mean %v half %v, want 100 and a half-width", mean, half)
	}
	// An interval of exactly minIntervalS counts, at its own length.
	ivs = []results.Interval{{T: 1, Requests: 100}, {T: 1.5, Requests: 60}}
	if mean, _ := perSecondRPS(ivs); mean != 110 {
		t.Errorf("with a half-second interval of 120 rps: mean %v, want 110", mean)
	}
}

// remoteDriver is a closedDriver that reports its own CPU and wall time,
// as a driver running outside sweep's process does.
type remoteDriver struct{ closedDriver }

func (d remoteDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	m, err := d.closedDriver.Run(ctx, req)
	m.DriverCPU, m.DriverWall = 500*time.Millisecond, time.Duration(d.seconds)*time.Second
	return m, err
}

// exitingDriver fails its measured phase as a k6 that exits does.
type exitingDriver struct{ closedDriver }

func (d exitingDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	return results.Measurement{}, errors.New("k6 exited 107")
}

// TestGeneratorHookFigures: each run of the check carries its driver's
// CPU per request and the host's CPU pressure; a chosen driver that fails
// fails the cell, with the check still written.
func TestGeneratorHookFigures(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
	builtin := closedDriver{name: "builtin", targetMS: 2, overheadMS: 0.02, seconds: 5}
	pressureAt := func() (pressure.Reading, error) { return pressure.Reading{Avg10: 3.5, Total: time.Second}, nil }

	chosen := remoteDriver{closedDriver{name: "k6", targetMS: 2, overheadMS: 0.03, seconds: 5}}
	var got GeneratorCheck
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: chosen, Pressure: pressureAt}
	r.Measure = GeneratorHook(r, builtin, func(gc GeneratorCheck) error { got = gc; return nil })
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	// 0.5 s of CPU over 5 s at 1000/2.03 × 5 requests.
	if want := float64(500000) / float64(got.Chosen.record.Requests); got.Chosen.CPUPerRequestUS != want {
		t.Errorf("chosen CPU per request %v µs, want %v", got.Chosen.CPUPerRequestUS, want)
	}
	if p := got.Chosen.CPUPressure; p == nil || p.SomeAvg10 != 3.5 {
		t.Errorf("chosen CPU pressure %+v, want avg10 3.5", p)
	}

	r = &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: exitingDriver{closedDriver{name: "k6"}}}
	called := false
	r.Measure = GeneratorHook(r, builtin, func(gc GeneratorCheck) error {
		called = gc.Chosen.Status == results.StatusFailed && gc.Reference.Status == results.StatusOK
		return nil
	})
	sum, err := r.Run(t.Context())
	if err != nil || len(sum.Records) != 1 || sum.Records[0].Status != results.StatusFailed ||
		!strings.Contains(sum.Records[0].Reason, "k6: ") {
		t.Errorf("failing chosen driver: err %v, records %+v; want the cell failed naming k6", err, sum.Records)
	}
	if !called {
		t.Error("the check was not handed over with the chosen run failed and the reference ok")
	}

	// The check cannot be written: the cell fails with that cause.
	r = &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: chosen}
	r.Measure = GeneratorHook(r, builtin, func(GeneratorCheck) error { return errors.New("disk full") })
	sum, err = r.Run(t.Context())
	if err == nil && (len(sum.Records) != 1 || !strings.Contains(sum.Records[0].Reason, "disk full")) {
		t.Errorf("unwritable check: err %v, records %+v; want the write error", err, sum.Records)
	}
}

// TestCollectingForwards: the measured phase's intervals are kept and
// still reach the runner; the warm-up's are not kept.
func TestCollectingForwards(t *testing.T) {
	t.Parallel()
	col := &collecting{Driver: closedDriver{name: "builtin", targetMS: 1, seconds: 3}}
	forwarded := 0
	req := LoadRequest{Load: results.LoadInfo{VUs: 1}, Interval: func(results.Interval) { forwarded++ }}
	if _, err := col.Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if len(col.intervals) != 3 || forwarded != 3 {
		t.Errorf("kept %d, forwarded %d; want 3 and 3", len(col.intervals), forwarded)
	}
	req.Warmup = true
	if _, err := col.Run(t.Context(), req); err != nil || len(col.intervals) != 3 {
		t.Errorf("warm-up kept intervals: %d", len(col.intervals))
	}
	// Without a runner callback the intervals are still kept.
	col = &collecting{Driver: closedDriver{name: "builtin", targetMS: 1, seconds: 2}}
	if _, err := col.Run(t.Context(), LoadRequest{Load: results.LoadInfo{VUs: 1}}); err != nil || len(col.intervals) != 2 {
		t.Errorf("no callback: kept %d, %v", len(col.intervals), err)
	}
}

// TestGeneratorCheckText pins the check's lines: each run by role with
// its figures (± only with a half-width), a failed run's reason, and the
// verdict.
func TestGeneratorCheckText(t *testing.T) {
	t.Parallel()
	half, littles := 12.4, 1.02
	c := GeneratorCheck{Cell: results.CellInfo{ID: "cpu_1__web_2__db_4"},
		Chosen: GeneratorRun{Driver: "k6", Status: results.StatusFailed, Reason: "k6 exited 107\nmore"},
		Reference: GeneratorRun{Driver: "builtin", Status: results.StatusOK, RPS: 1000.4, RPSHalfWidth: &half,
			P99MS: 3.456, CPUPerRequestUS: 41.6, LittlesRatio: &littles}}
	want := "generator check on cpu_1__web_2__db_4:\n" +
		"  chosen    k6       failed (k6 exited 107 …)\n" +
		"  reference builtin  ok 1000 rps ± 12, p99 3.46 ms, 42 µs CPU per request, Little's ratio 1.02\n"
	if got := c.Text(); got != want {
		t.Errorf("Text() =\n%s\nwant\n%s", got, want)
	}
	c.Chosen = GeneratorRun{Driver: "k6", Status: results.StatusOK, RPS: 990, P99MS: 4}
	c.GapPct = 1.04
	want = "generator check on cpu_1__web_2__db_4:\n" +
		"  chosen    k6       ok 990 rps, p99 4.00 ms, 0 µs CPU per request\n" +
		"  reference builtin  ok 1000 rps ± 12, p99 3.46 ms, 42 µs CPU per request, Little's ratio 1.02\n" +
		"  no generator limit: the k6 driver's RPS is within noise of the builtin driver's (gap 1.0 %)\n"
	if got := c.Text(); got != want {
		t.Errorf("Text() =\n%s\nwant\n%s", got, want)
	}
}

// TestCompareGeneratorsAtTheEdge: a gap of exactly the minimum is within
// noise.
func TestCompareGeneratorsAtTheEdge(t *testing.T) {
	t.Parallel()
	tiny := 0.5
	chosen := GeneratorRun{Driver: "k6", Status: results.StatusOK, RPS: 1000 * (1 - MinGeneratorGapPct/100), RPSHalfWidth: &tiny}
	ref := GeneratorRun{Driver: "builtin", Status: results.StatusOK, RPS: 1000, RPSHalfWidth: &tiny}
	got := CompareGenerators(results.CellInfo{ID: "c"}, chosen, ref)
	if got.GapPct != MinGeneratorGapPct || got.Limited {
		t.Errorf("gap %v limited %v; want %v, not limited", got.GapPct, got.Limited, MinGeneratorGapPct)
	}
}
