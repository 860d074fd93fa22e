package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// composeProgress matches the compose CLI's own progress lines, v1's
// ("Creating x ... done", "Recreating x") and v2's (" Container x  Started").
var composeProgress = regexp.MustCompile(`(?m)^\s*((Creating|Recreating|Starting|Stopping|Removing) \S|(Container|Network|Volume) \S+\s+\S)`)

// cellLine matches sweep's one line per finished cell.
var cellLine = regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d \[\d+/\d+\] \S+ r\d+ (ok|failed|interrupted) .*, ETA \S+$`)

// assertOneVoice checks a finished run's stderr: no line of the compose
// CLI's progress (that is in sweep.log, which must have it), exactly one
// line per finished cell, and no line longer than a terminal can show.
func assertOneVoice(t *testing.T, stderr, dir string, cells int) {
	t.Helper()
	if m := composeProgress.FindString(stderr); m != "" {
		t.Errorf("the compose CLI's progress reached stderr (%q):\n%s", m, stderr)
	}
	if n := len(cellLine.FindAllString(stderr, -1)); n != cells {
		t.Errorf("%d lines for finished cells on stderr, want %d:\n%s", n, cells, stderr)
	}
	for _, line := range strings.Split(stderr, "\n") {
		if len([]rune(line)) > 400 {
			t.Errorf("stderr line of %d characters: %.120q…", len([]rune(line)), line)
		}
	}
	log, err := os.ReadFile(filepath.Join(dir, results.LogFile))
	if err != nil || !composeProgress.Match(log) {
		t.Errorf("sweep.log lacks the compose CLI's progress (%v):\n%s", err, log)
	}
}
