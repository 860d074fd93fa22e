package report

import (
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// hostShift is what the host did to each round: every slice of a round
// moved alike, by far more than the cells differ.
var hostShift = []float64{0.7, 1.3, 0.9, 1.2, 0.8, 1.1}

// interleavedRun writes a run of one CPU limit's four cells (levels rps,
// p99 at 20 ms × the inverse) measured as an interleaved schedule of
// len(hostShift) rounds, each slice moved by its round's shift and by
// ±0.3 % of its own, the cells in group(i); failed(i, k) fails cell i's
// slice of round k. schedule "" writes the same figures as a sequential
// run.
func interleavedRun(t *testing.T, schedule string, rps []float64, group func(i int) int, failed func(i, k int) bool) *results.Run {
	t.Helper()
	dir := t.TempDir()
	infos := fxGrid([]float64{1}, []float64{1, 2, 3, 4}, []float64{2})
	var cells []fxCell
	for i, info := range infos[:len(rps)] {
		c := fxCell{info: info}
		for k, shift := range hostShift {
			own := 1 + 0.003*float64((i+k)%3-1)
			r := results.Rep{Record: results.Record{Status: results.StatusOK,
				Measurement: results.Measurement{RPS: rps[i] * shift * own, Requests: 1000,
					LatencyMS: results.Latency{P99: 20 * 1000 / rps[i] / shift / own}}}}
			if schedule != "" {
				r.LoadSlice = &results.LoadSlice{Group: group(i), Round: k + 1, Position: 1 + (i+k)%len(rps), Targets: len(rps)}
			}
			if failed(i, k+1) {
				r.Status, r.Reason, r.RPS = results.StatusFailed, "the target restarted", 0
			}
			c.reps = append(c.reps, r)
		}
		cells = append(cells, c)
	}
	writeRun(t, dir, "inter", map[string]any{"cpus": []float64{1}, "service": "app", "schedule": schedule}, cells)
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func oneGroup(int) int         { return 1 }
func noneFailed(_, _ int) bool { return false }

// TestPairedSeparatesWhatTheHostShifts: a cell 3 % ahead of another,
// both shifted ±30 % from round to round by the host, is told apart
// once each slice is read against its round, and not by its own figures
// (the same figures as a sequential run); the figures stay in RPS.
func TestPairedSeparatesWhatTheHostShifts(t *testing.T) {
	t.Parallel()
	levels := []float64{1000, 1030, 900, 950}
	seq, err := Build(interleavedRun(t, "", levels, oneGroup, noneFailed), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !seq.Cells[0].RPS.Overlaps(seq.Cells[1].RPS) {
		t.Fatalf("sequential: %+v and %+v apart; the test's host shift is too small", seq.Cells[0].RPS, seq.Cells[1].RPS)
	}
	rep, err := Build(interleavedRun(t, "interleaved", levels, oneGroup, noneFailed), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.Cells[0].RPS, rep.Cells[1].RPS
	if a.Overlaps(b) || a.N != 6 || b.N != 6 {
		t.Errorf("paired: %+v and %+v overlap (or not 6 rounds)", a, b)
	}
	if b.Mean < 1000 || b.Mean > 1100 || b.Mean/a.Mean < 1.02 || b.Mean/a.Mean > 1.04 {
		t.Errorf("paired means %.1f and %.1f: want RPS near the levels, 3 %% apart", a.Mean, b.Mean)
	}
	if p := rep.Cells[1].P99; p.Overlaps(rep.Cells[0].P99) || p.Mean > rep.Cells[0].P99.Mean {
		t.Errorf("paired p99 %+v against %+v: want lower and apart", p, rep.Cells[0].P99)
	}
	cpu := rep.PerCPU[0]
	if cpu.BestRPS.Cell.ID != rep.Cells[1].ID || len(cpu.BestRPS.Ties) != 0 {
		t.Errorf("best RPS %s with %d ties, want %s alone", cpu.BestRPS.Cell.ID, len(cpu.BestRPS.Ties), rep.Cells[1].ID)
	}
	n := rep.Noise
	if !n.Measured || n.Pairing == nil || n.Pairing.Paired != 4 || n.Pairing.Rounds != 6 || n.Pairing.Groups != 1 {
		t.Fatalf("noise %+v, pairing %+v", n, n.Pairing)
	}
	if n.RPSCV > 0.01 {
		t.Errorf("paired noise %.3f: the host's shift left in", n.RPSCV)
	}
	if n.Pairing.Cut != 0 {
		t.Errorf("%d rounds cut where the host moved only between rounds", n.Pairing.Cut)
	}
	for _, want := range []string{"paired by round", "no control cell ran", "rounds"} {
		if !strings.Contains(rep.NoiseNote(), want) {
			t.Errorf("noise note %q lacks %q", rep.NoiseNote(), want)
		}
	}
	if raw := rep.run.Cells[1].Reps[0].RPS; raw != levels[1]*hostShift[0]*(1+0.003*float64((1+0)%3-1)) {
		t.Errorf("the run's record changed: %g", raw)
	}
}

// TestPairedFailedSlice: a target that restarted fails its slice, not
// the round: the other cells keep that round, the cell its others; a
// slice alone ok in its round is left out, and said so.
func TestPairedFailedSlice(t *testing.T) {
	t.Parallel()
	levels := []float64{1000, 1030, 900}
	failed := func(i, k int) bool { return i == 2 && k == 3 || i > 0 && k == 5 }
	rep, err := Build(interleavedRun(t, "interleaved", levels, oneGroup, failed), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := []int{rep.Cells[0].RPS.N, rep.Cells[1].RPS.N, rep.Cells[2].RPS.N}
	if got[0] != 5 || got[1] != 5 || got[2] != 4 {
		t.Errorf("rounds per cell %v, want 5 5 4 (cell 0 alone ok in round 5)", got)
	}
	if rep.Cells[2].Failed != 2 || rep.Cells[2].Status != results.StatusOK {
		t.Errorf("cell 2: %d failed, status %s", rep.Cells[2].Failed, rep.Cells[2].Status)
	}
	if p := rep.Noise.Pairing; p.Dropped != 1 || !strings.Contains(p.Sentence(), "1 slice(s) left out") {
		t.Errorf("pairing %+v: %s", p, p.Sentence())
	}
	if rep.Cells[0].RPS.Overlaps(rep.Cells[1].RPS) {
		t.Errorf("cells 0 and 1 no longer apart: %+v %+v", rep.Cells[0].RPS, rep.Cells[1].RPS)
	}
	// no round with two ok slices (a target killed in round 1, Ctrl-C in
	// round 2): every slice is left out, nothing is read, nothing panics
	if _, p := pairRun(interleavedRun(t, "interleaved", levels[:2], oneGroup, func(i, k int) bool { return i == k%2 })); p.Dropped != 6 || p.Rounds != 0 {
		t.Errorf("pairing of a run with no round of two: %+v", p)
	}
}

// TestPairedSplitKeepsOwnFigures: a CPU limit whose targets ran in two
// groups (the connection limit) is not paired: its groups' rounds ran at
// different times. Its cells keep their own figures, and the note says
// so; a group of one target likewise.
func TestPairedSplitKeepsOwnFigures(t *testing.T) {
	t.Parallel()
	levels := []float64{1000, 1030, 900, 950}
	run := interleavedRun(t, "interleaved", levels, func(i int) int { return 1 + i/2 }, noneFailed)
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	own := estimate([]float64{run.Cells[0].Reps[0].RPS, run.Cells[0].Reps[1].RPS, run.Cells[0].Reps[2].RPS,
		run.Cells[0].Reps[3].RPS, run.Cells[0].Reps[4].RPS, run.Cells[0].Reps[5].RPS}, 0)
	if got := rep.Cells[0].RPS; got.Mean != own.Mean || got.Lo > own.Lo {
		t.Errorf("split cell %+v, want its own figures %+v", got, own)
	}
	p := rep.Noise.Pairing
	if p.Paired != 0 || len(p.Split) != 1 || !strings.Contains(p.Sentence(), "connection limit split 1 CPUs") {
		t.Errorf("pairing %+v: %s", p, p.Sentence())
	}
	alone, err := Build(interleavedRun(t, "interleaved", levels, func(i int) int { return 1 + min(i, 1) }, noneFailed), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p := alone.Noise.Pairing; len(p.Alone) != 1 || p.Alone[0] != run.Cells[0].ID {
		t.Errorf("alone: %+v", p)
	}
}

// TestPairedNoiseNotMeasured: an interleaved run whose rounds cannot
// measure the noise says that more rounds would.
func TestPairedNoiseNotMeasured(t *testing.T) {
	t.Parallel()
	n := Noise{Pairing: &Pairing{}, RPS: 0.05, Why: "too few rounds"}
	if s := n.NotMeasured(); !strings.Contains(s, "--rounds") || strings.Contains(s, "--control-every") {
		t.Errorf("NotMeasured = %q", s)
	}
}

// TestPicksApart: the paired run's picks are apart at its CPU limit; the
// same figures read as a sequential run's are not; a CPU limit the run
// did not measure has no picks.
func TestPicksApart(t *testing.T) {
	t.Parallel()
	levels := []float64{1000, 1100, 800, 900}
	if !PicksApart(interleavedRun(t, "interleaved", levels, oneGroup, noneFailed), 1, DefaultOptions()) {
		t.Error("paired picks not apart")
	}
	if PicksApart(interleavedRun(t, "", levels, oneGroup, noneFailed), 1, DefaultOptions()) {
		t.Error("sequential picks apart under ±30 % host shifts")
	}
	if PicksApart(interleavedRun(t, "interleaved", levels, oneGroup, noneFailed), 2, DefaultOptions()) {
		t.Error("picks apart at a CPU limit not measured")
	}
}

// TestPairedSaysRoundsNotRerun: the headline of an interleaved run points
// at more rounds, not at sweep rerun, which refuses its cells.
func TestPairedSaysRoundsNotRerun(t *testing.T) {
	t.Parallel()
	rep, err := Build(interleavedRun(t, "interleaved", []float64{1000, 1100, 800, 900}, oneGroup, noneFailed), DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	paras := strings.Join(actParas(rep, "RUN"), "\n")
	if strings.Contains(paras, "sweep rerun") || !strings.Contains(paras, "--rounds") {
		t.Errorf("headline:\n%s", paras)
	}
}
