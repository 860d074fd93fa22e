package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestRecordsNeverLost breaks the run directory while the first of two
// cells is measured: made read-only (a read-only bind mount of it) or
// full (a small tmpfs filled up). The run must stop at that cell with
// exit 1, name the file and the OS error, never list the cell as ok, start
// no further cell, and leave nothing running. Mounts need root
// (CAP_SYS_ADMIN), because root ignores file modes: chmod cannot make a
// directory read-only for it.
func TestRecordsNeverLost(t *testing.T) {
	bin, cli := demo(t)
	for _, tc := range []struct {
		name, oserr string
		breakDir    func(t *testing.T, out string)
	}{
		{"read-only", "read-only file system", func(t *testing.T, out string) {
			mount(t, "--bind", out, out)
			mount(t, "-o", "remount,bind,ro", out)
		}},
		{"full disk", "no space left on device", func(t *testing.T, out string) {
			fill := exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(out, "fill"), "bs=64k")
			if b, err := fill.CombinedOutput(); !strings.Contains(string(b), "No space left") {
				t.Fatalf("dd did not fill the tmpfs (%v): %s", err, b)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
			if tc.name == "full disk" {
				mount(t, "-t", "tmpfs", "-o", "size=4m", "tmpfs", filepath.Dir(out))
			}
			c := demoRun(t, p, out, "0.5,1")
			pr := start(t, bin, c)
			meta := waitMeta(t, pr, out)
			first, second := meta.Cells[0].ID, meta.Cells[1].ID
			waitMeasuring(t, pr, cli, out, first)
			tc.breakDir(t, out)
			code := pr.wait(t)
			stderr, stdout := pr.stderr.String(), pr.stdout.String()
			if code != exitFailure {
				t.Errorf("exit %d, want 1\nstderr:\n%s", code, stderr)
			}
			cellDir := results.CellDir(out, first, 1)
			if !strings.Contains(stderr, cellDir) || !strings.Contains(stderr, tc.oserr) {
				t.Errorf("stderr should name a file in %s and %q:\n%s", cellDir, tc.oserr, stderr)
			}
			for _, line := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(line, first) && strings.Contains(line, " ok ") {
					t.Errorf("the cell whose record was lost is listed ok: %q", line)
				}
			}
			if fileExists(results.CellDir(out, second, 1)) {
				t.Errorf("the run went on to %s after its records could not be written", second)
			}
			assertNoContainers(t, cli, meta.RunID)
		})
	}
}

// mount runs mount(8) with args and unmounts the last arg at the end of
// the test; it skips the test where mounting is not allowed.
func mount(t *testing.T, args ...string) {
	t.Helper()
	target := args[len(args)-1]
	if b, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		if os.Geteuid() != 0 {
			t.Skipf("mount %s needs root: %v: %s", strings.Join(args, " "), err, b)
		}
		t.Fatalf("mount %s: %v: %s", strings.Join(args, " "), err, b)
	}
	if strings.Contains(strings.Join(args, " "), "remount") {
		return // the first mount's cleanup unmounts it
	}
	t.Cleanup(func() {
		if b, err := exec.Command("umount", "-l", target).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", target, err, b)
		}
	})
}
