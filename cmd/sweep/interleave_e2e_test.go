package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// interleavedRun is demoRun on the interleaved schedule: two targets at
// 0.5 CPU (web 1 pool 2, web 2 pool 4), three rounds of 4 s slices.
func interleavedRun(t *testing.T, p ports, out string, extra ...string) cmdline {
	t.Helper()
	c := demoRun(t, p, out, "0.5")
	c.args = append(c.args, append([]string{"--web-mult", "2,4", "--schedule", "interleaved", "--slice", "4s",
		"--rounds", "3", "--duration", "12s"}, extra...)...)
	return c
}

// measuring is the cell whose slice of round k sweep.log says began
// (other than skip); "" while none has.
func measuring(out string, k int, skip string) string {
	log, _ := os.ReadFile(filepath.Join(out, results.LogFile))
	re := regexp.MustCompile(`(\S+) r` + regexp.QuoteMeta(string(rune('0'+k))) + `: measured phase`)
	for _, m := range re.FindAllStringSubmatch(string(log), -1) {
		if m[1] != skip {
			return m[1]
		}
	}
	return ""
}

// slice reads cell's record of round k.
func sliceRecord(t *testing.T, out, cell string, k int) results.Record {
	t.Helper()
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(out, cell, k), results.ResultFile))
	if err != nil {
		t.Fatalf("%s round %d: %v", cell, k, err)
	}
	return rec
}

// TestInterleavedFaults runs the demo interleaved: a target killed in its
// slice of round 1 fails that slice while the other target's goes on;
// Ctrl-C in round 2 exits 130 and leaves no container; the same command
// resumes, runs round 2 again whole and round 3, every slice ok.
func TestInterleavedFaults(t *testing.T) {
	longTest(t, "60 s")
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := interleavedRun(t, p, out)
	first := start(t, bin, c)
	meta := waitMeta(t, first, out)
	cells := []string{meta.Cells[0].ID, meta.Cells[1].ID}
	var killed string
	waitFor(t, first, "round 1's first slice", func() bool { killed = measuring(out, 1, ""); return killed != "" })
	time.Sleep(time.Second)
	list := containers(t, cli, sweep.LabelRun+"="+meta.RunID, sweep.LabelTarget+"="+killed)
	if len(list) != 1 {
		t.Fatalf("%d targets of %s", len(list), killed)
	}
	if err := cli.ContainerKill(t.Context(), list[0].ID, "KILL"); err != nil {
		t.Fatal(err)
	}
	other := cells[0]
	if other == killed {
		other = cells[1]
	}
	waitFor(t, first, "round 2's slice of "+other, func() bool { return measuring(out, 2, killed) == other })
	time.Sleep(time.Second)
	first.signal(syscall.SIGINT)
	if code := first.wait(t); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want 130\nstderr:\n%s", code, first.stderr.String())
	}
	assertNoContainers(t, cli, meta.RunID)
	if rec := sliceRecord(t, out, killed, 1); rec.Status != results.StatusFailed || rec.LoadSlice == nil {
		t.Errorf("the killed target's slice: %s (%s)", rec.Status, rec.Reason)
	} else {
		t.Logf("the killed target's slice: %s", rec.Reason)
	}
	if rec := sliceRecord(t, out, other, 1); rec.Status != results.StatusOK {
		t.Errorf("the other target's slice of round 1: %s (%s)", rec.Status, rec.Reason)
	}
	if rec := sliceRecord(t, out, other, 2); rec.Status != results.StatusInterrupted {
		t.Errorf("the slice Ctrl-C cut: %s (%s)", rec.Status, rec.Reason)
	}
	resumed := time.Now()
	code, again := runSweep(t, bin, c)
	if code != exitOK || !strings.Contains(again.stderr.String(), "resuming run "+meta.RunID) {
		t.Fatalf("resumed run: exit %d, want 0 and a resume notice\nstderr:\n%s", code, again.stderr.String())
	}
	for _, cell := range cells {
		for k := 2; k <= 3; k++ {
			rec := sliceRecord(t, out, cell, k)
			if rec.Status != results.StatusOK || rec.StartedAt.Before(resumed) {
				t.Errorf("%s round %d after the resume: %s (%s), started %s", cell, k, rec.Status, rec.Reason, rec.StartedAt)
			}
		}
	}
	if rec := sliceRecord(t, out, killed, 1); rec.Status != results.StatusFailed {
		t.Errorf("the resume ran the finished round 1 again: %s", rec.Status)
	}
	assertNoContainers(t, cli, meta.RunID)
	assertJSONParses(t, out)
}

// TestInterleavedGuardRefuses: a pool alone over the database's
// max_connections stops the interleaved run with exit 2 naming
// --over-limit before any target starts.
func TestInterleavedGuardRefuses(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := interleavedRun(t, p, out, "--db-mult", "300") // pools of 300 and 600 against max_connections 200
	code, pr := runSweep(t, bin, c)
	if code != exitBadInput || !strings.Contains(pr.stderr.String(), "--over-limit") {
		t.Errorf("exit %d, want 2 naming --over-limit\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	if log, err := os.ReadFile(filepath.Join(out, results.LogFile)); err != nil || strings.Contains(string(log), "group 1:") {
		t.Errorf("a group of targets was started (%v):\n%s", err, log)
	}
	if _, err := os.Stat(filepath.Join(out, results.CellsDir)); !os.IsNotExist(err) {
		t.Errorf("records were written (%v)", err)
	}
	assertNoContainers(t, cli, meta.RunID)
}

// TestInterleavedHalvingOnDemo runs halving on the interleaved rounds of
// the demo at 1 CPU: web 1 pool 1, web 1 pool 2, web 2 pool 2 and web 2
// pool 4, the app's background task holding two connections for 800 ms
// of every second, so the small pools wait and the pool of 4 does not.
// After round 3 the rung drops what the paired rounds separate from the
// best: each dropped target's container is gone while round 4 runs on
// the others, its slices of rounds 1-3 stay ok and it has no round 4;
// every slice of the run is ok and fewer slices ran than the grid's.
func TestInterleavedHalvingOnDemo(t *testing.T) {
	longTest(t, "85 s")
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1", "DEMOAPP_BG_HOLD=800ms")
	c.args = append(c.args, "--web-mult", "1,2", "--db-mult", "1,2", "--schedule", "interleaved", "--strategy", "halving",
		"--slice", "3s", "--rounds", "4", "--duration", "12s")
	run := start(t, bin, c)
	meta := waitMeta(t, run, out)
	if len(meta.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(meta.Cells))
	}
	logText := func() string { b, _ := os.ReadFile(filepath.Join(out, results.LogFile)); return string(b) }
	waitFor(t, run, "round 1's first slice", func() bool { return measuring(out, 1, "") != "" })
	waitFor(t, run, "the rung after round 3", func() bool { return strings.Contains(logText(), "halving after round 3") })
	cuts := readCuts(t, out)
	if len(cuts) != 1 || cuts[0].AfterRound != 3 {
		t.Fatalf("rungs.json: %+v, want the rung after round 3", cuts)
	}
	for _, id := range cuts[0].Drop {
		waitFor(t, run, "the dropped target "+id+" stopped", func() bool {
			return len(containers(t, cli, sweep.LabelRun+"="+meta.RunID, sweep.LabelTarget+"="+id)) == 0
		})
	}
	inPlay := len(meta.Cells) - len(cuts[0].Drop)
	if !run.exited() && inPlay > 1 {
		var left []string
		for _, cell := range meta.Cells {
			if !slices.Contains(cuts[0].Drop, cell.ID) &&
				len(containers(t, cli, sweep.LabelRun+"="+meta.RunID, sweep.LabelTarget+"="+cell.ID)) == 0 {
				left = append(left, cell.ID)
			}
		}
		if len(left) > 0 && !strings.Contains(logText(), "round 4 done") {
			t.Errorf("targets in play stopped before round 4 ended: %v", left)
		}
	}
	if code := run.wait(t); code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, run.stderr.String())
	}
	t.Logf("rung after round 3: dropped %v; note %q; why %v", cuts[0].Drop, cuts[0].Note, cuts[0].Why)
	if len(cuts[0].Drop) == 0 {
		t.Errorf("nothing dropped: the small pools waiting 800 ms a second were not separated from the pool of 4\n%s", logText())
	}
	slicesRun := 0
	for _, cell := range meta.Cells {
		dropped := slices.Contains(cuts[0].Drop, cell.ID)
		for k := 1; k <= 4; k++ {
			path := filepath.Join(results.CellDir(out, cell.ID, k), results.ResultFile)
			if (dropped || inPlay == 1) && k == 4 { // one left: its group's rounds end
				if fileExists(path) {
					t.Errorf("%s ran round 4 (dropped %v, %d in play)", cell.ID, dropped, inPlay)
				}
				continue
			}
			rec := sliceRecord(t, out, cell.ID, k)
			slicesRun++
			if rec.Status != results.StatusOK || rec.LoadSlice == nil {
				t.Errorf("%s round %d: %s (%s)", cell.ID, k, rec.Status, rec.Reason)
			}
			t.Logf("%s round %d: %.0f rps, p99 %.1f ms, %d targets", cell.ID, k, rec.RPS, rec.LatencyMS.P99, rec.LoadSlice.Targets)
		}
	}
	if slicesRun >= 4*4 {
		t.Errorf("%d slices, not fewer than the grid's 16", slicesRun)
	}
	assertNoContainers(t, cli, meta.RunID)
	assertJSONParses(t, out)
}

// readCuts reads group 1's rung decisions.
func readCuts(t *testing.T, out string) []sweep.Cut {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(results.GroupDir(out, 1), sweep.RungsFile))
	if err != nil {
		t.Fatal(err)
	}
	var cuts []sweep.Cut
	if err := json.Unmarshal(b, &cuts); err != nil {
		t.Fatal(err)
	}
	return cuts
}
