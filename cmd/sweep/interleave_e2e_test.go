package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/compose"
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
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := interleavedRun(t, p, out)
	first := start(t, bin, c)
	meta := waitMeta(t, first, out)
	cells := []string{meta.Cells[0].ID, meta.Cells[1].ID}
	var killed string
	waitFor(t, first, "round 1's first slice", func() bool { killed = measuring(out, 1, ""); return killed != "" })
	time.Sleep(time.Second)
	list := containers(t, cli, sweep.LabelRun+"="+meta.RunID, compose.LabelTarget+"="+killed)
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
