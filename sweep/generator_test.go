package sweep

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
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
}
