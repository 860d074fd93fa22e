package main

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
)

// TestHalvingRunEndToEnd runs --strategy halving on the demo stack with
// seconds-long phases: a 9 s grid screens every cell for 2 s (round 1),
// measures the cells that could still win as long as the grid would
// (round 2: a final runs until apart from its rivals or --duration, at
// least min(--duration, 60 s), so 9 s here), and the report recommends
// from the finals alone.
func TestHalvingRunEndToEnd(t *testing.T) {
	longTest(t, "75 s")
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	c.args = append(c.args, "--web-mult", "1,2,3,4", "--duration", "9s", "--strategy", "halving")
	code, pr := runSweep(t, bin, c)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	var finals []string
	for _, cell := range meta.Cells {
		s, err := results.ReadRecord(filepath.Join(results.ScreenDir(out, cell.ID, 1), results.ResultFile))
		if err != nil || s.Round != 1 || s.DurationS < 1.5 || s.DurationS > 2.5 || s.Status != results.StatusOK {
			t.Errorf("%s screening: round %d, %.2f s, %s, %v; want round 1 of 2 s, ok", cell.ID, s.Round, s.DurationS, s.Status, err)
		}
		f, err := results.ReadRecord(filepath.Join(results.CellDir(out, cell.ID, 1), results.ResultFile))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || f.Round != 2 || f.DurationS < 8.5 || f.DurationS > 9.5 {
			t.Errorf("%s final: round %d, %.2f s, %v; want round 2 of 9 s", cell.ID, f.Round, f.DurationS, err)
		}
		finals = append(finals, cell.ID)
	}
	run, err := results.LoadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Build(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Strategy != report.StrategyHalving || len(finals) == 0 || len(finals)+len(rep.Screened) != len(meta.Cells) {
		t.Fatalf("strategy %q, finals %v, screened %v of %d cells", rep.Strategy, finals, rep.Screened, len(meta.Cells))
	}
	for _, prof := range rep.Profiles {
		if !prof.Found {
			t.Errorf("%s: no pick (%s)", prof.Key, prof.Note)
			continue
		}
		if id := prof.CellAt(1).Cell; !slices.Contains(finals, id) {
			t.Errorf("%s picked %s, which was not measured in full (finals %v)", prof.Key, id, finals)
		}
	}
	t.Logf("finals %v, screened out %v", finals, rep.Screened)
	assertNoContainers(t, cli, meta.RunID)
}

// TestPlanShowsBothStrategies: sweep plan prices the study's grid under
// both strategies (80 cells of 8 s overhead, 30 s warm-up, 5 min measure:
// 7h31m; the grid's 1 + 80/10 controls of 8 s + 30 s + 30 s add 10m12s),
// halving at worst 80 screens of 8 s + 5 s + 5 s and 80 finals of 8 s +
// 10 s + 5 min (a final may run as long as the grid's cell) with 30 s to
// start and stop: 7h29m.
func TestPlanShowsBothStrategies(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "plan", "--cpus", "2,4,6,8", "--warmup", "30s", "--duration", "5m")
	for _, want := range []string{"worst case, grid: 7h41m", "9 controls", "worst case, halving: 7h29m",
		"round 1: every remaining cell once, warm-up 5s + measure 5s", "round 2 (finals)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d; plan lacks %q:\n%s", code, want, out)
		}
	}
}

func TestStrategyFlag(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCLI(t, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1", "--strategy", "bayes")
	if code != exitBadInput || !strings.Contains(errOut, "--strategy") {
		t.Errorf("--strategy bayes: exit %d, %s; want bad input naming --strategy", code, errOut)
	}
}
