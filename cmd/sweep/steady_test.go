package main

import (
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestSweepRunStopsWhenSteady runs one demo cell with the steady-state
// rule on: an open model far below the cell's capacity (so the RPS is the
// arrival rate) with a 20 % precision (p99 within 100 %), robust to a
// loaded host, stops well before its 90 s maximum, and the record says so.
func TestSweepRunStopsWhenSteady(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	c.args = append(c.args, "--load", "rate=40", "--warmup", "20s", "--duration", "90s",
		"--precision", "20%", "--min-duration", "5s")
	code, pr := runSweep(t, bin, c)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	rec := readRecord(t, out, meta.Cells[0].ID)
	st := rec.Stopping
	if rec.Status != results.StatusOK || st == nil {
		t.Fatalf("status %s (%s), stopping %+v", rec.Status, rec.Reason, st)
	}
	t.Logf("steady after %.0f s (measured %.1f s, reason %q), warm-up %.1f s of %.0f (settled %v), %.0f RPS",
		st.SteadyAfterS, rec.DurationS, st.SteadyReason, st.WarmupUsedS, st.WarmupMaxS, st.WarmupSettled, rec.RPS)
	if !st.StoppedEarly || st.SteadyAfterS <= 0 || st.SteadyAfterS >= 90 || rec.DurationS >= 89 {
		t.Errorf("not stopped early: steady after %.0f s, measured %.1f s (%s)", st.SteadyAfterS, rec.DurationS, st.SteadyReason)
	}
	if rec.PhasesS["measure"] >= 89 || st.PrecisionReached == nil || *st.PrecisionReached > 0.2 {
		t.Errorf("measure phase %.1f s, precision reached %v", rec.PhasesS["measure"], st.PrecisionReached)
	}
	if st.WarmupUsedS <= 0 || st.WarmupUsedS > 20.5 || !st.WarmupSettled && st.WarmupUsedS != 20 {
		t.Errorf("warm-up used %.1f s of 20, settled %v", st.WarmupUsedS, st.WarmupSettled)
	}
	checkSamples(t, results.CellDir(out, rec.Cell.ID, 1), rec.DurationS)
	assertNoContainers(t, cli, meta.RunID)
}
