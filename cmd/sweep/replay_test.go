package main

import (
	"encoding/json"
	"math"
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

// TestReplayNoiseAtALength: --noise 10%@20s is each round's noise scaled
// from 20 s to the round's length, named as assumed, in JSON and text.
func TestReplayNoiseAtALength(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "replay", sharedHostRun, "--seeds", "5", "--noise", "10%@20s", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Noise []struct {
			LengthS  float64 `json:"length_s"`
			RPS      float64 `json:"rps_cv"`
			Measured bool    `json:"measured"`
		} `json:"noise"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not one JSON document: %v\n%s", err, out)
	}
	// The run's 90 s cells give a 5 s screen and finals of up to 90 s.
	if len(doc.Noise) != 2 || doc.Noise[0].LengthS != 5 || doc.Noise[1].LengthS != 90 || doc.Noise[0].Measured ||
		math.Abs(doc.Noise[0].RPS-0.2) > 1e-9 || math.Abs(doc.Noise[1].RPS-0.1*math.Sqrt(20.0/90)) > 1e-9 {
		t.Errorf("noise %+v, want 20 %% at 5 s and 4.7 %% at 90 s, assumed", doc.Noise)
	}
	code, out, errOut = runCLI(t, "replay", sharedHostRun, "--seeds", "5", "--noise", "10%@20s")
	if want := "Round 1 noise at 5 s: RPS 20.0 %, p99 20.0 % (assumed: 10.0 % given at 20 s"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, %s: output lacks %q:\n%s", code, errOut, want, out)
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
		{"noise at no length", []string{"replay", sharedHostRun, "--noise", "5%@0s"}, "--noise"},
		{"noise at a bad length", []string{"replay", sharedHostRun, "--noise", "5%@soon"}, "--noise"},
		{"no noise to measure", []string{"replay", study, "--seeds", "5"}, "--noise"},
		{"not a run", []string{"replay", t.TempDir()}, "not a run directory"},
	} {
		code, _, errOut := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %q; want 2 naming %s", tc.name, code, errOut, tc.want)
		}
	}
}
