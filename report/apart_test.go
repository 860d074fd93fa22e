package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestSeparatedDropsOnlyWhatThePairedRoundsSeparate: on rounds the host
// shifts ±30 %, a cell 3 % and cells 8-10 % behind the best are dropped
// (95 % paired intervals apart from every pick's), a cell 0.1 % off the
// best is a tie and stays, and where every cell is within noise of the
// best nothing is dropped and the note says why.
func TestSeparatedDropsOnlyWhatThePairedRoundsSeparate(t *testing.T) {
	t.Parallel()
	run := interleavedRun(t, "interleaved", []float64{1000, 1030, 900, 950}, oneGroup, noneFailed)
	ids := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, run.Cells[i].ID)
		}
		return out
	}
	drop, why, note := Separated(run, 1, DefaultOptions())
	if !slices.Equal(drop, ids(0, 2, 3)) || note != "" {
		t.Errorf("clear losers: dropped %v (%q), want %v", drop, note, ids(0, 2, 3))
	}
	if w := why[run.Cells[2].ID]; !strings.Contains(w, "over 6 rounds paired with each pick, at 95 %") {
		t.Errorf("why: %q", w)
	}

	tie := interleavedRun(t, "interleaved", []float64{1000, 1001, 900, 950}, oneGroup, noneFailed)
	drop, _, _ = Separated(tie, 1, DefaultOptions())
	if slices.Contains(drop, tie.Cells[0].ID) || slices.Contains(drop, tie.Cells[1].ID) || len(drop) != 2 {
		t.Errorf("a tie: dropped %v; want the two behind only, neither of the tied pair", drop)
	}

	level := interleavedRun(t, "interleaved", []float64{1000, 1000.5, 1001, 999.5}, oneGroup, noneFailed)
	drop, _, note = Separated(level, 1, DefaultOptions())
	if len(drop) != 0 || !strings.Contains(note, "is worse than every profile") {
		t.Errorf("all within noise: dropped %v, note %q; want none and the note", drop, note)
	}
}

// TestPairedReadsRoundsAgainstTheTargetsInPlay: after a rung dropped the
// two weaker targets at round 3, the later rounds' median is the two
// left; each round is read against those two, so the best cell's ratio
// is the same in every round and its interval stays as narrow as its
// own noise (against all four slices in rounds 1-3 it would move 4 %).
func TestPairedReadsRoundsAgainstTheTargetsInPlay(t *testing.T) {
	t.Parallel()
	run := interleavedRun(t, "interleaved", []float64{1000, 1030, 900, 950}, oneGroup, noneFailed)
	for _, i := range []int{2, 3} {
		run.Cells[i].Reps = run.Cells[i].Reps[:3]
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	best := rep.Cells[1].RPS
	if half := (best.Hi - best.Lo) / 2 / best.Mean; best.N != 6 || half > 0.01 {
		t.Errorf("the finalist's paired RPS %+v: ±%.1f %% over %d rounds, want 6 rounds within ±1 %%", best, 100*half, best.N)
	}
	if r := rep.Cells[1].RPS.Mean / rep.Cells[0].RPS.Mean; r < 1.02 || r > 1.04 {
		t.Errorf("finalists' ratio %.3f, want 1.03", r)
	}
}

// TestSeparatedThroughANoisyMiddle: the demo's rounds 1-3 (its app's
// background task holding two connections 800 ms a second): two pools
// of 2 swing 70-330 rps from round to round, which moves each round's
// median and leaves the pool of 4's paired RPS interval overlapping every
// cell's; paired with it round by round, the others are clearly worse in
// RPS and p99: the rung drops them, and the report's sets, read by the
// same ratio, hold none of them (on that run the report once kept web 1
// pool 2 in the latency set although the rung had measured its p99 at
// 17.6× the best's).
func TestSeparatedThroughANoisyMiddle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	infos := fxGrid([]float64{1}, []float64{1, 2}, []float64{1, 2})
	data := map[string][][2]float64{ // rps, p99 ms of rounds 1-3
		"cpu_1__web_1__db_1": {{1, 2293}, {1, 2873}, {1, 2277}},
		"cpu_1__web_1__db_2": {{212, 803}, {162, 849}, {70, 858}},
		"cpu_1__web_2__db_2": {{153, 809}, {332, 810}, {106, 820}},
		"cpu_1__web_2__db_4": {{1411, 23.5}, {1544, 25.8}, {1282, 33}},
	}
	var cells []fxCell
	for _, info := range infos {
		c := fxCell{info: info}
		for k, v := range data[info.ID] {
			c.reps = append(c.reps, results.Rep{Record: results.Record{Status: results.StatusOK,
				Measurement: results.Measurement{RPS: v[0], Requests: int64(v[0] * 3), DurationS: 3, LatencyMS: results.Latency{P99: v[1]}},
				LoadSlice:   &results.LoadSlice{Group: 1, Round: k + 1, Position: 1, Targets: 4}}})
		}
		cells = append(cells, c)
	}
	writeRun(t, dir, "demo", map[string]any{"cpus": []float64{1}, "service": "app", "schedule": "interleaved"}, cells)
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := BuildPicks(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	cr := rep.PerCPU[0]
	if best := cr.BestRPS.Cell; best.ID != "cpu_1__web_2__db_4" || !slices.ContainsFunc(cr.Cells, func(c *Cell) bool {
		return c != best && c.RPS.Overlaps(best.RPS)
	}) {
		t.Fatalf("best %s %+v overlaps no other cell's interval; the test's middle is not noisy enough", best.ID, best.RPS)
	}
	drop, why, note := Separated(run, 1, DefaultOptions())
	want := []string{"cpu_1__web_1__db_1", "cpu_1__web_1__db_2", "cpu_1__web_2__db_2"}
	if !slices.Equal(drop, want) {
		t.Errorf("dropped %v (%q), want %v", drop, note, want)
	}
	for name, p := range map[string]Pick{"throughput": cr.BestRPS, "latency": cr.BestP99, "balanced": cr.Balanced} {
		for _, c := range p.Set() {
			if slices.Contains(drop, c.ID) {
				t.Errorf("the %s set %v holds %s, which the rung dropped", name, ids(p.Set()), c.ID)
			}
		}
	}
	if !PicksApart(run, 1, DefaultOptions()) {
		t.Error("the picks are not apart although the rounds separate every other cell from them")
	}
	t.Log(why)
}
