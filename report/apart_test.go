package report

import (
	"slices"
	"strings"
	"testing"
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
	if w := why[run.Cells[2].ID]; !strings.Contains(w, "95 % paired intervals over 6 rounds apart") {
		t.Errorf("why: %q", w)
	}

	tie := interleavedRun(t, "interleaved", []float64{1000, 1001, 900, 950}, oneGroup, noneFailed)
	drop, _, _ = Separated(tie, 1, DefaultOptions())
	if slices.Contains(drop, tie.Cells[0].ID) || slices.Contains(drop, tie.Cells[1].ID) || len(drop) != 2 {
		t.Errorf("a tie: dropped %v; want the two behind only, neither of the tied pair", drop)
	}

	level := interleavedRun(t, "interleaved", []float64{1000, 1000.5, 1001, 999.5}, oneGroup, noneFailed)
	drop, _, note = Separated(level, 1, DefaultOptions())
	if len(drop) != 0 || !strings.Contains(note, "within a pick's 95 % paired interval") {
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
