package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/studyrun"
)

var sharedHostRun = filepath.Join("..", "..", "strategy", "replay", "testdata", "shared-host")

func TestReplayJSON(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "replay", sharedHostRun, "--strategy", "halving", "--seeds", "10", "--noise", "5%", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Fraction  *float64           `json:"fraction"`
		Agreement map[string]float64 `json:"agreement"`
		Replays   int                `json:"replays"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	if doc.Fraction == nil || *doc.Fraction <= 0 || doc.Replays != 10 || len(doc.Agreement) != 3 {
		t.Errorf("document %s", out)
	}
}

func TestReplayText(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "replay", sharedHostRun)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Round 1: 2 cells", "keeps", "of the grid's", "throughput", "web 1× pool 2×"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestReplayBadInput(t *testing.T) {
	t.Parallel()
	study := t.TempDir()
	f, err := os.Open(filepath.Join("..", "..", "report", "testdata", "game-of-pools-summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := studyrun.Write(study, f, studyrun.StudyParams(4*time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"grid", []string{"replay", sharedHostRun, "--strategy", "grid"}, "--strategy"},
		{"noise not a number", []string{"replay", sharedHostRun, "--noise", "lots"}, "--noise"},
		{"noise 100 %", []string{"replay", sharedHostRun, "--noise", "100%"}, "--noise"},
		{"no noise to measure", []string{"replay", study, "--seeds", "5"}, "--noise"},
		{"not a run", []string{"replay", t.TempDir()}, "not a run directory"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 naming %s", tc.name, code, errOut, tc.want)
		}
	}
}
