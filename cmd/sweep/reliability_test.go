package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestKilledRunResumes kills sweep with SIGKILL (the whole process group,
// compose CLI included) while its second cell recreates the target, after
// a second sweep on the same directory was refused by the lock. Running
// the same command again takes over the stale lock, keeps the finished
// cell as it was, redoes the interrupted one and finishes the grid.
func TestKilledRunResumes(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5,1,2")
	first := start(t, bin, c)
	waitFor(t, first, "the run's lock", func() bool { return fileExists(filepath.Join(out, results.LockFile)) })
	meta := waitMeta(t, first, out)
	for _, tc := range []struct {
		name  string
		extra []string
	}{
		{"same command", nil},
		{"other spec with --force-new", []string{"--duration", "4s", "--force-new"}},
	} {
		t.Run("second sweep refused/"+tc.name, func(t *testing.T) {
			refused := c
			refused.args = append(append([]string(nil), c.args...), tc.extra...)
			refused.out = "" // the run's leftovers are the first process's
			code, second := runSweep(t, bin, refused)
			if stderr := second.stderr.String(); code != exitBadInput || !strings.Contains(stderr, results.LockFile) {
				t.Errorf("exit %d, want 2 with a message naming %s:\n%s", code, results.LockFile, stderr)
			}
			if aside := out + ".old-" + meta.RunID; fileExists(aside) {
				t.Errorf("the running sweep's directory was moved to %s", aside)
			}
		})
	}
	cells := []string{meta.Cells[0].ID, meta.Cells[1].ID, meta.Cells[2].ID}
	// the second cell's folder appears as its apply begins: the kill lands
	// while the compose CLI recreates the target
	waitFor(t, first, cells[1]+"'s folder", func() bool { return fileExists(results.CellDir(out, cells[1], 1)) })
	time.Sleep(1500 * time.Millisecond)
	first.signal(syscall.SIGKILL)
	<-first.done
	kept, err := os.ReadFile(filepath.Join(results.CellDir(out, cells[0], 1), results.ResultFile))
	if err != nil {
		t.Fatalf("the first cell has no result.json after the kill: %v", err)
	}
	if rec := readRecord(t, out, cells[0]); rec.Status != results.StatusOK {
		t.Fatalf("first cell: %s (%s), want ok", rec.Status, rec.Reason)
	}
	if rec, err := results.ReadRecord(filepath.Join(results.CellDir(out, cells[1], 1), results.ResultFile)); err == nil {
		t.Fatalf("the killed cell has a result.json (%s)", rec.Status)
	}
	if left := containers(t, cli, sweep.LabelRun+"="+meta.RunID); len(left) == 0 {
		t.Error("SIGKILL left no container behind: the kill was not mid-cell")
	}

	code, again := runSweep(t, bin, c)
	stderr := again.stderr.String()
	if code != exitOK {
		t.Fatalf("resumed run: exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	for _, want := range []string{"resuming run " + meta.RunID, "took over the lock"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("resumed run's stderr lacks %q:\n%s", want, stderr)
		}
	}
	now, err := os.ReadFile(filepath.Join(results.CellDir(out, cells[0], 1), results.ResultFile))
	if err != nil || !bytes.Equal(now, kept) {
		t.Errorf("the finished cell's result.json changed on resume (%v)", err)
	}
	for _, id := range cells[1:] {
		if rec := readRecord(t, out, id); rec.Status != results.StatusOK {
			t.Errorf("cell %s: %s (%s) after resume", id, rec.Status, rec.Reason)
		}
	}
	assertJSONParses(t, out)
	assertNoContainers(t, cli, meta.RunID)
}

// TestInterruptedRunResumes sends SIGINT to sweep's process group in the
// middle of a cell, as Ctrl-C in a terminal does: exit 130, the cell
// recorded as interrupted, nothing left running; the same command then
// resumes and finishes.
func TestInterruptedRunResumes(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5")
	first := start(t, bin, c)
	meta := waitMeta(t, first, out)
	cell := meta.Cells[0].ID
	waitMeasuring(t, first, cli, out, cell)
	first.signal(syscall.SIGINT)
	if code := first.wait(t); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want 130\nstderr:\n%s", code, first.stderr.String())
	}
	if rec := readRecord(t, out, cell); rec.Status != results.StatusInterrupted {
		t.Errorf("cell %s: %s (%s), want interrupted", cell, rec.Status, rec.Reason)
	}
	if !strings.Contains(first.stdout.String(), cell+"  r1   interrupted") {
		t.Errorf("no summary with the interrupted cell on stdout:\n%s", first.stdout.String())
	}
	assertNoContainers(t, cli, meta.RunID)
	assertJSONParses(t, out)

	code, again := runSweep(t, bin, c)
	if code != exitOK || !strings.Contains(again.stderr.String(), "resuming run "+meta.RunID) {
		t.Fatalf("resumed run: exit %d, want 0 and a resume notice\nstderr:\n%s", code, again.stderr.String())
	}
	if rec := readRecord(t, out, cell); rec.Status != results.StatusOK {
		t.Errorf("cell %s: %s (%s) after resume", cell, rec.Status, rec.Reason)
	}
	assertNoContainers(t, cli, meta.RunID)
}

// TestCrashingCellFails makes the demo app crash at start in one cell
// only (DEMOAPP_FAULT_WHEN is matched against the cell id): that cell is
// failed with a reason and the target's log, the other one is ok, and the
// run exits 1.
func TestCrashingCellFails(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	const crashing, healthy = "cpu_0.5__web_1__db_2", "cpu_1__web_1__db_2"
	c := demoRun(t, p, out, "0.5,1", "DEMOAPP_FAULT=crash", "DEMOAPP_FAULT_WHEN="+crashing)
	code, pr := runSweep(t, bin, c)
	if code != exitFailure {
		t.Errorf("exit %d, want 1\nstderr:\n%s", code, pr.stderr.String())
	}
	rec := readRecord(t, out, crashing)
	if rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "exited") {
		t.Errorf("crashing cell: %s (%q), want failed saying the target exited", rec.Status, rec.Reason)
	}
	if log, err := os.ReadFile(filepath.Join(results.CellDir(out, crashing, 1), results.TargetLog)); err != nil || len(bytes.TrimSpace(log)) == 0 {
		t.Errorf("crashing cell's target.log is missing or empty (%v)", err)
	}
	if rec := readRecord(t, out, healthy); rec.Status != results.StatusOK {
		t.Errorf("healthy cell: %s (%s), want ok", rec.Status, rec.Reason)
	}
	assertNoContainers(t, cli, readMeta(t, out).RunID)
}

// TestRunIDsDiffer checks that runs started in the same second get
// different ids: the id names the compose project, and two runs sharing
// one would recreate each other's containers.
func TestRunIDsDiffer(t *testing.T) {
	t.Parallel()
	now := time.Now()
	a, b := results.NewRunID(now), results.NewRunID(now)
	if a == b || sweep.ProjectName(a) == sweep.ProjectName(b) {
		t.Errorf("two runs started at %s share the id %s (project %s)", now, a, sweep.ProjectName(a))
	}
	if !strings.HasPrefix(a, now.UTC().Format("20060102-150405")) {
		t.Errorf("run id %s does not begin with its start time, so run folders no longer sort by time", a)
	}
}

// waitMeasuring waits until sweep.log says the cell's measured phase
// began, then a second more; it returns the target's container id.
func waitMeasuring(t *testing.T, p *proc, cli *client.Client, out, cellID string) string {
	t.Helper()
	runID := waitMeta(t, p, out).RunID
	waitFor(t, p, cellID+"'s measured phase", func() bool {
		log, _ := os.ReadFile(filepath.Join(out, results.LogFile))
		return strings.Contains(string(log), cellID+" r1: measured phase")
	})
	time.Sleep(time.Second)
	list := containers(t, cli, sweep.LabelRun+"="+runID, sweep.LabelCell+"="+cellID)
	if len(list) != 1 {
		t.Fatalf("%d target containers of %s", len(list), cellID)
	}
	return list[0].ID
}

// assertJSONParses fails on any .json file in dir that does not parse.
func assertJSONParses(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && !json.Valid(b) {
			t.Errorf("%s does not parse", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
