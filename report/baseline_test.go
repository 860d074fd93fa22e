package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestChangeInterval pins the gain's interval: from the pick's low over
// the baseline's high to the pick's high over the baseline's low, with
// the report's noise rules (a single measurement: ± band/2; repetitions:
// the 95 % t interval). The example, one measurement each at the
// default 5 % band: 1180 against 1000 RPS is +18 % [12, 24].
func TestChangeInterval(t *testing.T) {
	t.Parallel()
	band := DefaultOptions().NoiseBand
	// mean 1150, half width 4.303 × 50/√3 = 124.2: low 1025.8, just above
	// the single baseline's high of 1025.
	reps := estimate([]float64{1100, 1200, 1150}, band)
	cases := []struct {
		name         string
		pick, base   Estimate
		pct, lo, hi  float64
		noHi         bool
		above, below bool
	}{
		{"single, issue example", estimate([]float64{1180}, band), estimate([]float64{1000}, band),
			18, 100 * (1180*0.975/1025 - 1), 100 * (1180*1.025/975 - 1), false, true, false},
		{"single, p99 down", estimate([]float64{69}, band), estimate([]float64{100}, band),
			-31, 100 * (69*0.975/102.5 - 1), 100 * (69*1.025/97.5 - 1), false, false, true},
		{"single, within the band", estimate([]float64{1040}, band), estimate([]float64{1000}, band),
			4, 100 * (1040*0.975/1025 - 1), 100 * (1040*1.025/975 - 1), false, false, false},
		{"repetitions against one", reps, estimate([]float64{1000}, band),
			15, 100 * (reps.Lo/1025 - 1), 100 * (reps.Hi/975 - 1), false, true, false},
		{"baseline interval reaches 0", Estimate{Mean: 10, Lo: 9, Hi: 11, N: 2}, Estimate{Mean: 5, Lo: -1, Hi: 11, N: 2},
			100, 100 * (9.0/11 - 1), 0, true, false, false},
		{"baseline interval touches 0", Estimate{Mean: 10, Lo: 9, Hi: 11, N: 2}, Estimate{Mean: 5, Lo: 0, Hi: 10, N: 2},
			100, 100 * (9.0/10 - 1), 0, true, false, false},
		// Intervals that touch overlap: neither up nor down beyond noise.
		{"touching from above", Estimate{Mean: 12, Lo: 10, Hi: 14, N: 2}, Estimate{Mean: 8, Lo: 5, Hi: 10, N: 2},
			50, 0, 100 * (14.0/5 - 1), false, false, false},
		{"touching from below", Estimate{Mean: 8, Lo: 5, Hi: 10, N: 2}, Estimate{Mean: 12, Lo: 10, Hi: 14, N: 2},
			100 * (8.0/12 - 1), 100 * (5.0/14 - 1), 0, false, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := change(c.pick, c.base)
			near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
			if !near(got.Pct, c.pct) && math.Abs(got.Pct-c.pct) > 1e-9*math.Abs(c.pct) {
				t.Errorf("pct %v, want %v", got.Pct, c.pct)
			}
			if !near(got.Lo, c.lo) {
				t.Errorf("lo %v, want %v", got.Lo, c.lo)
			}
			switch {
			case c.noHi && got.Hi != nil:
				t.Errorf("hi %v, want none", *got.Hi)
			case !c.noHi && (got.Hi == nil || !near(*got.Hi, c.hi)):
				t.Errorf("hi %v, want %v", got.Hi, c.hi)
			}
			if got.above() != c.above || got.below() != c.below {
				t.Errorf("above %v below %v, want %v %v", got.above(), got.below(), c.above, c.below)
			}
			// Beyond noise exactly when the report would not call the two
			// figures equivalent.
			if beyond := got.above() || got.below(); beyond == c.pick.Overlaps(c.base) {
				t.Errorf("beyond noise %v but intervals overlap %v", beyond, c.pick.Overlaps(c.base))
			}
		})
	}
}

// TestGainText pins the sentence and the verdict per profile.
func TestGainText(t *testing.T) {
	t.Parallel()
	band := DefaultOptions().NoiseBand
	cell := func(id string, rps, p99 float64) *Cell {
		return &Cell{CellInfo: results.CellInfo{ID: id}, RPS: estimate([]float64{rps}, band), P99: estimate([]float64{p99}, band)}
	}
	base := cell("cpu_2__web_4__db_8__baseline", 1000, 100)
	cases := []struct {
		name, profile string
		pick          *Cell
		better        bool
		text          string
	}{
		{"throughput gains", "throughput", cell("a", 1180, 69), true, "+18 % RPS [12, 24], −31 % p99 [−34, −27] vs baseline"},
		{"latency gains", "latency", cell("a", 1180, 69), true, "+18 % RPS [12, 24], −31 % p99 [−34, −27] vs baseline"},
		{"throughput within noise", "throughput", cell("a", 1040, 69), false,
			"+4 % RPS [−1, 9], −31 % p99 [−34, −27] vs baseline; " + NotBetter},
		{"latency worse", "latency", cell("a", 1180, 120), false,
			"+18 % RPS [12, 24], +20 % p99 [14, 26] vs baseline; " + NotBetter},
		{"balanced: RPS up, p99 within noise", "balanced", cell("a", 1180, 102), true,
			"+18 % RPS [12, 24], +2 % p99 [−3, 7] vs baseline"},
		{"balanced: RPS up, p99 clearly worse", "balanced", cell("a", 1180, 120), false,
			"+18 % RPS [12, 24], +20 % p99 [14, 26] vs baseline; " + NotBetter},
		{"balanced: same", "balanced", cell("a", 1000, 100), false,
			"±0 % RPS [−5, 5], ±0 % p99 [−5, 5] vs baseline; " + NotBetter},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := gain(c.profile, 2, c.pick, base, false)
			if g.Better != c.better || g.Text != c.text {
				t.Errorf("got %v %q\nwant %v %q", g.Better, g.Text, c.better, c.text)
			}
		})
	}
}

// TestBaselineInReport: baseline cells stay out of the grid and every
// pick, sit below each matrix marked baseline, and give each profile's
// gain per CPU limit in --json.
func TestBaselineInReport(t *testing.T) {
	t.Parallel()
	var cells []fxCell
	rec := func(rps, p99 float64) []results.Rep {
		return []results.Rep{{Record: results.Record{Status: results.StatusOK,
			Measurement: results.Measurement{RPS: rps, LatencyMS: results.Latency{P99: p99}}}}}
	}
	for i, info := range fxGrid([]float64{1, 2}, []float64{1, 2}, []float64{2}) {
		cells = append(cells, fxCell{info: info, reps: rec(1000+100*float64(i), 50-float64(i))})
	}
	// The baseline has the values of a grid cell and wins on both figures
	// at 1 CPU, so it would be every pick if it took part.
	for _, cpu := range []float64{1, 2} {
		id := map[float64]string{1: "cpu_1__web_1__db_2__baseline", 2: "cpu_2__web_1__db_2__baseline"}[cpu]
		cells = append(cells, fxCell{info: results.CellInfo{ID: id, CPUs: cpu, WebThreads: 1, DBPool: 2, Baseline: true},
			reps: rec(map[float64]float64{1: 5000, 2: 800}[cpu], map[float64]float64{1: 10, 2: 80}[cpu])})
	}
	rep := buildRun(t, map[string]any{"cpus": []float64{1, 2}, "web_mult": []float64{1, 2},
		"db_mult": []float64{2}, "service": "app"}, cells)
	for _, cr := range rep.PerCPU {
		if cr.Baseline == nil || !strings.HasSuffix(cr.Baseline.ID, "__baseline") {
			t.Fatalf("CPU %g: baseline %+v", cr.CPUs, cr.Baseline)
		}
		for _, p := range []Pick{cr.BestRPS, cr.BestP99, cr.Balanced} {
			if p.Cell.Baseline {
				t.Errorf("CPU %g: the baseline is a pick", cr.CPUs)
			}
		}
		for _, c := range cr.Cells {
			if c.Baseline {
				t.Errorf("CPU %g: the baseline is among the grid's cells", cr.CPUs)
			}
		}
		m := matrixTable(rep, cr, MetricRPS)
		last := m.Rows[len(m.Rows)-1]
		if !strings.HasPrefix(last[0], "baseline") || !strings.Contains(last[1], "[2]") {
			t.Errorf("CPU %g: last matrix row %q, want the baseline", cr.CPUs, last)
		}
	}
	var doc struct {
		PerCPU []struct {
			CPUs       float64 `json:"cpus"`
			VsBaseline []Gain  `json:"vs_baseline"`
		} `json:"per_cpu"`
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, d := range doc.PerCPU {
		if len(d.VsBaseline) != 3 {
			t.Fatalf("CPU %g: %d gains, want one per profile: %s", d.CPUs, len(d.VsBaseline), buf.String())
		}
		for _, g := range d.VsBaseline {
			// At 1 CPU the baseline beats everything; at 2 CPUs every
			// pick beats it on RPS and P99.
			if g.Better != (d.CPUs == 2) {
				t.Errorf("CPU %g %s: better %v: %s", d.CPUs, g.Profile, g.Better, g.Text)
			}
			// At 1 CPU the grid's cpu_1__web_1__db_2 has the baseline's
			// settings but measured 1000 RPS against 5000: the twin note.
			if twin := strings.HasPrefix(g.Twin, "cpu_1__web_1__db_2 has the baseline's settings and measured 1000 RPS"); twin != (d.CPUs == 1) {
				t.Errorf("CPU %g %s: twin %q", d.CPUs, g.Profile, g.Twin)
			}
		}
	}
}

// TestFailedBaselineLeftOutOfJSON: --json shows a CPU limit's baseline
// cell only when it was measured ok.
func TestFailedBaselineLeftOutOfJSON(t *testing.T) {
	t.Parallel()
	ok := func(rps, p99 float64) []results.Rep {
		return []results.Rep{{Record: results.Record{Status: results.StatusOK,
			Measurement: results.Measurement{RPS: rps, LatencyMS: results.Latency{P99: p99}}}}}
	}
	var cells []fxCell
	for i, info := range fxGrid([]float64{1, 2}, []float64{1, 2}, []float64{2}) {
		cells = append(cells, fxCell{info: info, reps: ok(1000+100*float64(i), 50-float64(i))})
	}
	cells = append(cells,
		fxCell{info: results.CellInfo{ID: "cpu_1__web_1__db_2__baseline", CPUs: 1, WebThreads: 1, DBPool: 2, Baseline: true}, reps: ok(900, 60)},
		fxCell{info: results.CellInfo{ID: "cpu_2__web_1__db_2__baseline", CPUs: 2, WebThreads: 1, DBPool: 2, Baseline: true},
			reps: []results.Rep{failedRep("ready: timed out")}})
	rep := buildRun(t, map[string]any{"cpus": []float64{1, 2}, "web_mult": []float64{1, 2},
		"db_mult": []float64{2}, "service": "app"}, cells)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		PerCPU []struct {
			CPUs     float64         `json:"cpus"`
			Baseline json.RawMessage `json:"baseline"`
		} `json:"per_cpu"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.PerCPU) != 2 {
		t.Fatalf("%d CPU limits, want 2", len(doc.PerCPU))
	}
	for _, d := range doc.PerCPU {
		if has := d.Baseline != nil; has != (d.CPUs == 1) {
			t.Errorf("CPU %g: baseline in --json %v, want it only where it was ok: %s", d.CPUs, has, d.Baseline)
		}
	}
}

// TestTwinNote: a grid cell with the baseline's settings whose figures
// are equivalent to the baseline's raises no note; one apart on either
// figure does.
func TestTwinNote(t *testing.T) {
	t.Parallel()
	band := DefaultOptions().NoiseBand
	cell := func(id string, pool int, rps, p99 float64) *Cell {
		return &Cell{CellInfo: results.CellInfo{ID: id, WebThreads: 2, DBPool: pool},
			RPS: estimate([]float64{rps}, band), P99: estimate([]float64{p99}, band)}
	}
	base := cell("b", 4, 1000, 20)
	cases := []struct {
		name string
		grid *Cell
		note bool
	}{
		{"equivalent", cell("g", 4, 1030, 20.5), false},
		{"RPS apart", cell("g", 4, 1300, 20), true},
		{"p99 apart", cell("g", 4, 1000, 25), true},
		{"other settings", cell("g", 8, 1300, 25), false},
	}
	for _, c := range cases {
		cr := &CPUReport{Cells: []*Cell{c.grid}, Baseline: base}
		if got := twinNote(cr); (got != "") != c.note {
			t.Errorf("%s: %q", c.name, got)
		}
	}
}
