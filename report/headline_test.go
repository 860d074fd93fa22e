package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHeadlineFirst: on the study's run, the first 25 lines of the
// terminal report give, per CPU limit and profile, the values to set and
// the cell, then the two commands that act on a row, with the run
// directory the user named.
func TestHeadlineFirst(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "gop")
	rep.runDir = "runs/gop"
	var b bytes.Buffer
	if err := WriteTerminal(&b, rep, MetricRPS); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	head := strings.Join(lines[:25], "\n")
	bests := rep.LimitPicks()
	if len(bests) != 12 {
		t.Fatalf("%d picks, want 4 CPU limits × 3 profiles", len(bests))
	}
	if !strings.Contains(head, "web: BOX_WEB_THREAD, pool: BOX_DB_POOL_MAXIMUM_POOL_SIZE") {
		t.Errorf("the first 25 lines do not name the run's variables:\n%s", head)
	}
	for _, m := range bests {
		c := m.Pick.Chosen()
		row := fmt.Sprintf("%g\\s+%s\\s+%d\\s+%d\\s+%s", m.CPUs, m.Profile, c.WebThreads, c.DBPool, c.ID)
		if !matchLine(head, row) {
			t.Errorf("no row %q in the first 25 lines:\n%s", row, head)
		}
	}
	for _, cmd := range []string{"sweep export runs/gop --cpus 8 --profile balanced", "sweep rerun runs/gop cpu_8__web_12__db_18"} {
		if !strings.Contains(head, cmd) {
			t.Errorf("the first 25 lines lack %q:\n%s", cmd, head)
		}
	}
	// the study's balanced at 4 CPUs: 6/12 measured best, 6/9 and 6/15
	// within the noise; the row is 6/9, the best beside it, and the row
	// and the export agree (report/export's
	// TestMeasuredLimitExportsThePick)
	if !matchLine(head, `4\s+balanced\s+6\s+9\s+cpu_4__web_6__db_9\s+3 pairs; best 6/12`) {
		t.Errorf("balanced at 4 CPUs is not web 6 / pool 9 of 3 pairs, the measured best 6/12 beside it")
	}
	if !strings.Contains(strings.Join(strings.Fields(head), " "), "the fewest threads, then the smallest pool") {
		t.Errorf("the first 25 lines do not say how a row is picked among pairs the data cannot separate:\n%s", head)
	}
}

// TestTerminalFitsTheWidth: every line of every terminal golden (the
// study's run, a mixed one, a safe-limit one, the noise cases) is at most
// TerminalWidth columns.
func TestTerminalFitsTheWidth(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txt"))
	if err != nil || len(files) < 5 {
		t.Fatalf("%d terminal goldens (%v)", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if n := len([]rune(line)); n > TerminalWidth {
				t.Errorf("%s:%d is %d columns: %.60s…", f, i+1, n, line)
			}
		}
	}
}

// matchLine reports whether a line of text matches the regular
// expression re in full, spaces at its ends aside.
func matchLine(text, re string) bool {
	r := regexp.MustCompile(`^\s*` + re + `\s`)
	for _, line := range strings.Split(text, "\n") {
		if r.MatchString(line + " ") {
			return true
		}
	}
	return false
}
