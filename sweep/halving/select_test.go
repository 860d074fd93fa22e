package halving

import (
	"errors"
	"slices"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/results/report"
	"github.com/sweep-tool/sweep/sweep"
)

// fig is one cell's figures in a synthetic round.
type fig struct {
	rps, p99, errRate float64
	status            results.Status
	invalid           string
}

// round measures the grid cpus × webMults × {2} with figures by web
// multiplier, scaled by the CPU limit (RPS ∝ cpus).
func round(cpus, webMults []float64, by map[float64]fig) []Measurement {
	var ms []Measurement
	for _, c := range sweep.BuildPlan(cpus, webMults, []float64{2}) {
		f := by[c.Mults[0][0]]
		if f.status == "" {
			f.status = results.StatusOK
		}
		ms = append(ms, Measurement{Cell: c.Info(), Status: f.status, Invalid: f.invalid,
			RPS: f.rps * c.CPUs, P99MS: f.p99, ErrorRate: f.errRate, Round: 1, DurationS: 5})
	}
	return ms
}

func opts(keep float64) SelectOptions {
	return SelectOptions{Keep: keep, Report: report.DefaultOptions()}
}

// Four pairs: A is latency's and balanced's best, B throughput's, C
// within noise of B, D worst at everything.
var abcd = map[float64]fig{
	1: {rps: 1000, p99: 10}, // A
	2: {rps: 1200, p99: 50}, // B
	3: {rps: 1190, p99: 48}, // C: 0.8 % below B's RPS, inside the 5 % band
	4: {rps: 600, p99: 80},  // D
}

func TestSelectKeepsTheBestOfEachProfileAndTheirTies(t *testing.T) {
	t.Parallel()
	sel, err := Select(round([]float64{1, 2}, []float64{1, 2, 3, 4}, abcd), opts(0.25))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4", "cpu_1__web_3__db_6",
		"cpu_2__web_2__db_4", "cpu_2__web_4__db_8", "cpu_2__web_6__db_12"}
	if !slices.Equal(sel.Keep, want) {
		t.Errorf("kept %v, want %v", sel.Keep, want)
	}
	if d := []string{"cpu_1__web_4__db_8", "cpu_2__web_8__db_16"}; !slices.Equal(sel.Drop, d) {
		t.Errorf("dropped %v, want %v", sel.Drop, d)
	}
	by := map[[2]float64]map[string]string{}
	for _, k := range sel.Pairs {
		by[k.Pair] = k.By
	}
	checks := map[[2]float64]map[string]string{
		{1, 2}: {"latency": "top", "balanced": "top"},
		{2, 2}: {"throughput": "top"},
		{3, 2}: {"throughput": "tie"},
	}
	for pair, want := range checks {
		for key, why := range want {
			if by[pair][key] != why {
				t.Errorf("pair %v under %s: %q, want %q (all: %v)", pair, key, by[pair][key], why, by[pair])
			}
		}
	}
	// D holds the lowest RPS and the highest P99, A the lowest P99 and
	// B the highest RPS at both limits: all three are anchors, and D is
	// measured again though it did not survive.
	anchors := []string{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4", "cpu_1__web_4__db_8",
		"cpu_2__web_2__db_4", "cpu_2__web_4__db_8", "cpu_2__web_8__db_16"}
	if !slices.Equal(sel.Anchors, anchors) {
		t.Errorf("anchors %v, want %v", sel.Anchors, anchors)
	}
	next := []string{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4", "cpu_1__web_3__db_6", "cpu_1__web_4__db_8",
		"cpu_2__web_2__db_4", "cpu_2__web_4__db_8", "cpu_2__web_6__db_12", "cpu_2__web_8__db_16"}
	if !slices.Equal(sel.Next(), next) {
		t.Errorf("next %v, want %v", sel.Next(), next)
	}
}

func TestSelectNeverKeepsWhatCannotWin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		bad  fig
	}{
		{"failed", fig{rps: 5000, p99: 1, status: results.StatusFailed}},
		{"invalid", fig{rps: 5000, p99: 1, invalid: "load did not reach the target"}},
		{"errors above 1 %", fig{rps: 5000, p99: 1, errRate: 0.011}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			figs := map[float64]fig{1: abcd[1], 2: abcd[2], 3: abcd[3], 4: abcd[4], 5: c.bad}
			ms := round([]float64{1}, []float64{1, 2, 3, 4, 5}, figs)
			sel, err := Select(ms, opts(1))
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(sel.Keep, "cpu_1__web_5__db_10") || slices.Contains(sel.Anchors, "cpu_1__web_5__db_10") {
				t.Errorf("the best-looking but ineligible cell survived: keep %v, anchors %v", sel.Keep, sel.Anchors)
			}
			if len(sel.Keep) != 4 {
				t.Errorf("keep 1 kept %v, want the four eligible cells", sel.Keep)
			}
		})
	}
}

// TestSelectDropsAPairIneligibleAtOneLimit: a pair is recommended across
// CPU limits, so a pair that failed at one limit cannot win and its good
// cells at the others go too.
func TestSelectDropsAPairIneligibleAtOneLimit(t *testing.T) {
	t.Parallel()
	ms := round([]float64{1, 2}, []float64{1, 2, 3, 4}, abcd)
	for i := range ms {
		if ms[i].Cell.ID == "cpu_2__web_4__db_8" { // B at 2 CPUs
			ms[i].Status = results.StatusFailed
		}
	}
	sel, err := Select(ms, opts(0.25))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(sel.Keep, "cpu_1__web_2__db_4") {
		t.Errorf("B survived at 1 CPU though it failed at 2: %v", sel.Keep)
	}
	if !slices.Contains(sel.Keep, "cpu_1__web_3__db_6") || !slices.Contains(sel.Keep, "cpu_2__web_6__db_12") {
		t.Errorf("C, now throughput's best, did not survive: %v", sel.Keep)
	}
}

// TestSelectMergedCellsAndSlices: a cell that two pairs give survives when
// either does; each slice (extra axis value) is its own grid.
func TestSelectMergedCellsAndSlices(t *testing.T) {
	t.Parallel()
	// At 0.5 CPU, web mults 1 and 2 both give one web thread: pairs 1×2
	// and 2×2 share cpu_0.5__web_1__db_2. RPS by cell; P99 falls as RPS
	// per core rises, so every profile agrees on one pair per slice.
	rps := map[string][2]float64{ // variant a, variant b
		"cpu_0.5__web_1__db_2": {100, 50}, "cpu_0.5__web_2__db_4": {50, 100},
		"cpu_2__web_2__db_4": {400, 200}, "cpu_2__web_4__db_8": {300, 300}, "cpu_2__web_8__db_16": {200, 400},
	}
	var ms []Measurement
	for v, variant := range []string{"a", "b"} {
		for _, c := range sweep.BuildPlan([]float64{0.5, 2}, []float64{1, 2, 4}, []float64{2}) {
			info := c.Info()
			r := rps[info.ID][v]
			info.Variant, info.ID = variant, info.ID+"__"+variant
			ms = append(ms, Measurement{Cell: info, Status: results.StatusOK, RPS: r, P99MS: 1e4 * c.CPUs / r, Round: 1})
		}
	}
	sel, err := Select(ms, SelectOptions{Keep: 0.3, Report: report.Options{ErrorBound: 0.01, NoiseBand: 0.01}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cpu_0.5__web_1__db_2__a", "cpu_2__web_2__db_4__a", "cpu_0.5__web_2__db_4__b", "cpu_2__web_8__db_16__b"}
	if !slices.Equal(sel.Keep, want) {
		t.Errorf("kept %v, want %v", sel.Keep, want)
	}
	var pairs [][2]float64
	for _, k := range sel.Pairs {
		pairs = append(pairs, k.Pair)
	}
	if !slices.Equal(pairs, [][2]float64{{1, 2}, {4, 2}}) || sel.Pairs[0].Slice != "variant=a" || sel.Pairs[1].Slice != "variant=b" {
		t.Errorf("pairs %+v, want 1×2 in variant a and 4×2 in variant b", sel.Pairs)
	}
}

func TestSelectPassesAnchorsOnAndRejectsBadInput(t *testing.T) {
	t.Parallel()
	ms := round([]float64{1}, []float64{1, 2, 3, 4}, abcd)
	sel, err := Select(ms, SelectOptions{Keep: 0.5, Report: report.DefaultOptions(), Anchors: []string{"cpu_1__web_3__db_6"}})
	if err != nil || !slices.Equal(sel.Anchors, []string{"cpu_1__web_3__db_6"}) {
		t.Errorf("later round: anchors %v, %v; want the ones passed in", sel.Anchors, err)
	}
	for _, keep := range []float64{0, -0.5, 1.5} {
		if _, err := Select(ms, opts(keep)); !errors.Is(err, sweep.ErrBadInput) {
			t.Errorf("keep %v: %v, want ErrBadInput", keep, err)
		}
	}
	ms[2].Round = 2
	if _, err := Select(ms, opts(0.5)); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("rounds 1 and 2 mixed: %v, want ErrBadInput", err)
	}
	sel, err = Select(round([]float64{1}, []float64{1, 2}, map[float64]fig{1: {status: results.StatusFailed}, 2: {status: results.StatusFailed}}), opts(0.5))
	if err != nil || len(sel.Keep) != 0 || len(sel.Drop) != 2 {
		t.Errorf("every cell failed: %+v, %v; want nothing kept, no error", sel, err)
	}
}
