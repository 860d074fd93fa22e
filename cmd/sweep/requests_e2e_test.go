package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestLoadAtTheWrongAPIStopsTheRun is issue 36's silent failure: the
// built-in driver pointed at a path where the demo has no API (every
// request is refused: the demo's router answers 405 there) once recorded
// each cell ok with errors=100 % and exited 0. Now each cell fails naming
// the status and what the service answered, the run stops after the
// first three at the failure limit (exit 1, the fourth cell never
// starts), and sweep report says the same of every cell.
func TestLoadAtTheWrongAPIStopsTheRun(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	for i, a := range c.args {
		if a == "--url" {
			c.args[i+1] = p.url() + "/api" // the demo serves its resources at the root
		}
	}
	c.args = append(c.args, "--web-mult", "1,2,3,4", "--duration", "2s")
	code, pr := runSweep(t, bin, c)
	stderr := pr.stderr.String()
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\nstderr:\n%s", code, exitFailure, stderr)
	}
	for _, want := range []string{"the load does not work against this stack", "the first 3 cells all failed on their requests",
		"requests failed: 100.0%", "http_405"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	meta := readMeta(t, out)
	for i, cell := range meta.Cells {
		if i == 3 {
			if _, err := os.Stat(results.CellDir(out, cell.ID, 1)); err == nil {
				t.Errorf("%s ran after the run should have stopped", cell.ID)
			}
			continue
		}
		rec := readRecord(t, out, cell.ID)
		if rec.Status != results.StatusFailed || rec.Cause != results.CauseRequests {
			t.Errorf("%s: %s cause %q, want failed on its requests (%s)", cell.ID, rec.Status, rec.Cause, rec.Reason)
		}
		// the creates are refused; the reads, updates and deletes that need
		// their ids are never sent and fail as skipped, not as requests
		for _, want := range []string{"requests failed: 100.0%", `create 100.0% of`, `(first: 405 "Method Not Allowed")`,
			"read 100.0% of 0 and ", "(first: skipped)", "http_405"} {
			if !strings.Contains(rec.Reason, want) {
				t.Errorf("%s: reason %q lacks %q", cell.ID, rec.Reason, want)
			}
		}
	}
	rc, rp := runSweep(t, bin, cmdline{args: []string{"report", out}, env: c.env})
	if rc == exitOK || strings.Count(rp.stderr.String(), "requests failed: 100.0%") != 3 {
		t.Errorf("sweep report: exit %d, want a failure naming each cell's failed requests:\n%s", rc, rp.stderr.String())
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)
}
