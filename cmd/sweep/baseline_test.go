package main

import (
	"strings"
	"testing"
)

// TestPlanWithBaseline: --baseline adds one cell per CPU limit, shown as
// the baseline; a malformed value is bad input naming the flag.
func TestPlanWithBaseline(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "plan", "--cpus", "1,2", "--web-mult", "1", "--db-mult", "2", "--baseline", "web=3,pool=9")
	if code != exitOK || !strings.Contains(out, "cpu_1__web_3__db_9__baseline") || !strings.Contains(out, "cpu_2__web_3__db_9__baseline") ||
		!strings.Contains(out, "4 cells") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, _, stderr := runCLI(t, "plan", "--cpus", "1", "--baseline", "web=3")
	if code != exitBadInput || !strings.Contains(stderr, "--baseline") || !strings.Contains(stderr, "pool=N") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
