package halving

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
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
	if sel.Band != 0.05 {
		t.Errorf("band %v; measurements that say nothing of their noise are judged with the report's 5 %%", sel.Band)
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
			if slices.Contains(sel.Keep, "cpu_1__web_5__db_10") {
				t.Errorf("the best-looking but ineligible cell survived: keep %v", sel.Keep)
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

func TestSelectRejectsBadInput(t *testing.T) {
	t.Parallel()
	ms := round([]float64{1}, []float64{1, 2, 3, 4}, abcd)
	for _, keep := range []float64{0, -0.5, 1.5} {
		if _, err := Select(ms, opts(keep)); !errors.Is(err, sweep.ErrBadInput) {
			t.Errorf("keep %v: %v, want ErrBadInput", keep, err)
		}
	}
	ms[2].Round = 2
	if _, err := Select(ms, opts(0.5)); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("rounds 1 and 2 mixed: %v, want ErrBadInput", err)
	}
	sel, err := Select(round([]float64{1}, []float64{1, 2}, map[float64]fig{1: {status: results.StatusFailed}, 2: {status: results.StatusFailed}}), opts(0.5))
	if err != nil || len(sel.Keep) != 0 || len(sel.Drop) != 2 {
		t.Errorf("every cell failed: %+v, %v; want nothing kept, no error", sel, err)
	}
}

// TestBand: the root mean square of the eligible measurements' noise,
// times z₉₅ (one-sided) × √2, never below the report's band nor above
// 0.9; a failed cell's or an erroring cell's noise takes no part.
func TestBand(t *testing.T) {
	t.Parallel()
	ok := func(noise float64) Measurement {
		return Measurement{Status: results.StatusOK, RPS: 1, Noise: noise}
	}
	busy := func(rps, noise float64) Measurement {
		return Measurement{Status: results.StatusOK, RPS: rps, Noise: noise}
	}
	failed := Measurement{Status: results.StatusFailed, Noise: 0.5}
	erring := Measurement{Status: results.StatusOK, ErrorRate: 0.02, Noise: 0.5}
	cases := []struct {
		name string
		ms   []Measurement
		want float64
	}{
		{"measured", []Measurement{ok(0.04), ok(0.03), failed, erring}, 1.959964 * math.Sqrt2 * math.Sqrt((0.04*0.04+0.03*0.03)/2)},
		{"quieter than the report's band", []Measurement{ok(0.01), ok(0.02)}, 0.05},
		{"nothing known", []Measurement{ok(0), failed}, 0.05},
		{"noise past the cap", []Measurement{ok(2)}, 0.9},
		// two busy cells and a starved one (1 RPS, its two seconds 1 and 0
		// requests): the starved cell weighs a thousandth of a busy one
		{"weighted by RPS", []Measurement{busy(1000, 0.04), busy(1000, 0.03), busy(1, 1)},
			1.959964 * math.Sqrt2 * math.Sqrt((1000*0.04*0.04+1000*0.03*0.03+1)/2001)},
		{"no requests, no weight", []Measurement{ok(0.04), busy(0, 1)}, 1.959964 * math.Sqrt2 * 0.04},
	}
	for _, c := range cases {
		if got := Band(c.ms, report.DefaultOptions()); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: band %v, want %v", c.name, got, c.want)
		}
	}
	if got := Band([]Measurement{ok(0.04), ok(0.03)}, report.DefaultOptions()); math.Abs(got-0.097998) > 1e-6 {
		t.Errorf("band %.6f, want 0.097998", got)
	}
}

// TestSelectKeepsWhatTheMeasuredNoiseCannotRuleOut: E's RPS is 16.7 %
// below B's. Judged with the report's 5 % band E cannot win
// throughput-first and goes; measured with 10 % noise per value, the
// round cannot rule out that E is as good as B, and E stays as a tie.
func TestSelectKeepsWhatTheMeasuredNoiseCannotRuleOut(t *testing.T) {
	t.Parallel()
	figs := map[float64]fig{1: abcd[1], 2: abcd[2], 3: {rps: 1000, p99: 60}, 4: abcd[4]}
	quiet := round([]float64{1}, []float64{1, 2, 3, 4}, figs)
	sel, err := Select(quiet, opts(0.01))
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(sel.Keep, "cpu_1__web_3__db_6") {
		t.Errorf("with a 5 %% band E survived: %v", sel.Keep)
	}
	noisy := slices.Clone(quiet)
	for i := range noisy {
		noisy[i].Noise = 0.10
	}
	sel, err = Select(noisy, opts(0.01))
	if err != nil {
		t.Fatal(err)
	}
	if want := 1.959964 * math.Sqrt2 * 0.10; math.Abs(sel.Band-want) > 1e-6 {
		t.Errorf("band %v, want %v", sel.Band, want)
	}
	want := []string{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4", "cpu_1__web_3__db_6"}
	if !slices.Equal(sel.Keep, want) {
		t.Errorf("kept %v, want %v (D is worse beyond any noise)", sel.Keep, want)
	}
	for _, k := range sel.Pairs {
		if k.Pair == [2]float64{3, 2} && k.By["throughput"] != "tie" {
			t.Errorf("E kept by %v, want a throughput tie", k.By)
		}
	}
}

// TestSelectLaterRoundNormalisesByTheFirst: the balanced score of a
// later round is normalised by the first round's spans, so dropping D
// (the lowest RPS, the highest P99) does not change who is best. Over
// the first round's spans (RPS 600–1200, P99 10–80) A scores 0.667 and
// C 0.581; over the survivors' own (1000–1200, 10–60) A would score 0
// and C 0.2.
func TestSelectLaterRoundNormalisesByTheFirst(t *testing.T) {
	t.Parallel()
	figs := map[float64]fig{1: {rps: 1000, p99: 10}, 2: {rps: 1200, p99: 60}, 3: {rps: 1120, p99: 30}, 4: {rps: 600, p99: 80}}
	first := round([]float64{1}, []float64{1, 2, 3, 4}, figs)
	second := slices.Clone(first[:3])
	for i := range second {
		second[i].Round = 2
	}
	topOf := func(sel Selection) [2]float64 {
		for _, k := range sel.Pairs {
			if k.By["balanced"] == "top" {
				return k.Pair
			}
		}
		return [2]float64{}
	}
	sel, err := Select(second, SelectOptions{Keep: 0.01, Report: report.DefaultOptions(), First: first})
	if err != nil {
		t.Fatal(err)
	}
	if got := topOf(sel); got != [2]float64{1, 2} {
		t.Errorf("balanced best in round 2 %v, want A (1×2) as the first round's spans rank it", got)
	}
	own, err := Select(second, SelectOptions{Keep: 0.01, Report: report.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if got := topOf(own); got != [2]float64{3, 2} {
		t.Errorf("normalised by its own spans round 2 picks %v; want C (3×2), or the test no longer shows the trap", got)
	}
}

// TestSeriesNoise: seconds of 100, 120, 80 and 100 requests have a CV of
// √(800/3)/100 = 0.16330; over √4 seconds, 0.08165. One second says
// nothing.
func TestSeriesNoise(t *testing.T) {
	t.Parallel()
	var series []results.Interval
	for i, n := range []int64{100, 120, 80, 100} {
		series = append(series, results.Interval{T: float64(i + 1), Requests: n})
	}
	if got, want := SeriesNoise(series), math.Sqrt(800.0/3)/100/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("noise %v, want %v", got, want)
	}
	if got := SeriesNoise(series[:1]); got != 0 {
		t.Errorf("one second: %v, want 0", got)
	}
}
