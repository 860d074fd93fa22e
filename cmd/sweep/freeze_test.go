package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// TestFrozenTargetFailsItsCell freezes the target's cgroup behind the
// engine's back (the kernel's freezer, as a stuck freezer left it in the
// last stop's rehearsal: the engine says it is running, not paused)
// about a second into the second cell's 8 s measured phase, and leaves it
// frozen: that cell fails saying the target stopped answering (before,
// it came out ok with the figures of the second before the freeze: the
// requests in flight at the phase's end are no errors), the run stops at
// --max-failures 1 saying so, the first cell's record is kept ok, and the
// run's end removes the frozen container and its cgroup without help.
// The test thaws whatever is left when it ends. On this host (cgroup v1,
// dockerd 20.10, runc 1.1) the engine went on answering every call on
// the frozen container, its stop and removal among them.
func TestFrozenTargetFailsItsCell(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5,1,2")
	c.args = append(c.args, "--duration", "8s", "--max-failures", "1", "--call-timeout", "1m")
	pr := start(t, bin, c)
	meta := waitMeta(t, pr, out)
	first, frozen := meta.Cells[0].ID, meta.Cells[1].ID
	target := waitMeasuring(t, pr, cli, out, frozen)
	ins, err := cli.ContainerInspect(t.Context(), target)
	if err != nil || ins.State == nil || ins.State.Pid == 0 {
		t.Fatalf("inspect the target %s: %v", target, err)
	}
	fz := freezerOf(t, ins.State.Pid)
	t.Cleanup(func() { fz.thaw(t) })
	fz.freeze(t)
	t.Logf("%s: froze the target %.12s (%s)", frozen, target, fz.file)
	if ins, err := cli.ContainerInspect(t.Context(), target); err == nil {
		t.Logf("the engine says the frozen target is %s, paused %v", ins.State.Status, ins.State.Paused)
	}

	code := pr.wait(t) // bounded: procTimeout
	t.Logf("stderr:\n%s", pr.stderr.String())
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(pr.stderr.String(), "too many failed cells: 1 (--max-failures 1)") {
		t.Errorf("stderr does not say the run stopped at the failure limit")
	}
	if rec := readRecord(t, out, first); rec.Status != results.StatusOK {
		t.Errorf("the first cell %s: %s %q; want it kept ok", first, rec.Status, rec.Reason)
	}
	rec := readRecord(t, out, frozen)
	t.Logf("%s (frozen): %s, cause %q: %s; phases %v", frozen, rec.Status, rec.Cause, rec.Reason, rec.PhasesS)
	if rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "the target stopped answering: nothing was answered in the last") {
		t.Errorf("the frozen cell: %s %q; want failed, saying the target stopped answering", rec.Status, rec.Reason)
	}
	for _, cell := range meta.Cells[2:] {
		if _, err := os.Stat(filepath.Join(results.CellDir(out, cell.ID, 1), results.ResultFile)); err == nil {
			t.Errorf("cell %s ran after the failure limit", cell.ID)
		}
	}
	// the run's end removed the frozen container (the engine's stop of
	// it) and with it its cgroup: nothing for the test's thaw to do
	assertNoContainers(t, cli, meta.RunID)
	if _, err := os.Stat(fz.file); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the frozen target's cgroup %s is still there after the run (%v)", filepath.Dir(fz.file), err)
	}
}

// freezer is the file that freezes and thaws a cgroup, with what to write:
// cgroup v1's freezer.state (FROZEN, THAWED) or v2's cgroup.freeze (1, 0).
type freezer struct{ file, frozen, thawed string }

// freezerOf finds the freezer of process pid's cgroup: its freezer
// controller's on cgroup v1 (a host whose unified hierarchy holds no
// controllers still lists it as 0::), else the unified one's. It skips
// (fails under SWEEP_REQUIRE_DOCKER=1) when the test may not write it.
func freezerOf(t *testing.T, pid int) freezer {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatalf("the target's cgroup: %v", err)
	}
	var unified string
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.SplitN(line, ":", 3) // hierarchy:controllers:path
		if len(f) != 3 {
			continue
		}
		if slices.Contains(strings.Split(f[1], ","), "freezer") {
			return writable(t, freezer{filepath.Join("/sys/fs/cgroup/freezer", f[2], "freezer.state"), "FROZEN", "THAWED"})
		}
		if f[0] == "0" && f[1] == "" {
			unified = f[2]
		}
	}
	if unified == "" {
		t.Fatalf("process %d has no freezer cgroup:\n%s", pid, b)
	}
	return writable(t, freezer{filepath.Join("/sys/fs/cgroup", unified, "cgroup.freeze"), "1", "0"})
}

func writable(t *testing.T, f freezer) freezer {
	t.Helper()
	file, err := os.OpenFile(f.file, os.O_WRONLY, 0)
	if err != nil {
		testenv.Absent(t, "the test cannot freeze the target's cgroup (it needs root and the freezer): "+err.Error())
	}
	_ = file.Close()
	return f
}

// freeze freezes the cgroup and waits (10 s at most) until the kernel
// says it is frozen (cgroup v1 passes through FREEZING).
func (f freezer) freeze(t *testing.T) {
	t.Helper()
	if err := os.WriteFile(f.file, []byte(f.frozen), 0); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	state := func() string { b, _ := os.ReadFile(f.file); return strings.TrimSpace(string(b)) }
	if strings.HasSuffix(f.file, "cgroup.freeze") {
		// cgroup.events' frozen 1 says it is done
		state = func() string {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(f.file), "cgroup.events"))
			if strings.Contains(string(b), "frozen 1") {
				return f.frozen
			}
			return ""
		}
	}
	for deadline := time.Now().Add(10 * time.Second); state() != f.frozen; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s still says %q 10 s after %s was written", f.file, state(), f.frozen)
		}
	}
}

// thaw thaws the cgroup if it is still there.
func (f freezer) thaw(t *testing.T) {
	err := os.WriteFile(f.file, []byte(f.thawed), 0)
	switch {
	case err == nil:
		t.Logf("thawed %s", f.file)
	case !errors.Is(err, fs.ErrNotExist):
		t.Errorf("thaw %s: %v", f.file, err)
	}
}
