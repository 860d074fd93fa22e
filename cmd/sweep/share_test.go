package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestNoiseMeansTheSameInEveryCommand: replay's and report's --noise read
// "5%" and "0.05" as one share, 5 % (replay once read 0.05 as 0.05 %,
// report refused 5%).
func TestNoiseMeansTheSameInEveryCommand(t *testing.T) {
	t.Parallel()
	for _, noise := range []string{"0.05", "5%"} {
		code, out, errOut := runCLI(t, "replay", sharedHostRun, "--seeds", "2", "--noise", noise, "--json")
		var replay struct {
			Noise []struct {
				RPSCV float64 `json:"rps_cv"`
			} `json:"noise"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &replay) != nil || len(replay.Noise) == 0 || replay.Noise[0].RPSCV != 0.05 {
			t.Errorf("replay --noise %s: exit %d, noise %+v, want a CV of 0.05 (%s)", noise, code, replay.Noise, errOut)
		}
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS(sharedHostRun)); err != nil {
			t.Fatal(err)
		}
		code, out, errOut = runCLI(t, "report", dir, "--noise", noise, "--json")
		var report struct {
			Options struct {
				NoiseBand float64 `json:"noise_band"`
			} `json:"options"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &report) != nil || report.Options.NoiseBand != 0.05 {
			t.Errorf("report --noise %s: exit %d, noise band %v, want 0.05 (%s)", noise, code, report.Options.NoiseBand, errOut)
		}
	}
}

// TestShareFlagsRefuseWhatIsAmbiguousOrOutOfRange: a bare number of 1 or
// more and a share of 100 % or more are bad input in every command,
// named by the flag, with the accepted forms, before anything starts.
func TestShareFlagsRefuseWhatIsAmbiguousOrOutOfRange(t *testing.T) {
	t.Parallel()
	run := []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1", "--driver", "builtin"}
	for _, tc := range []struct {
		name string
		args []string
		flag string
	}{
		{"replay noise 5", []string{"replay", sharedHostRun, "--noise", "5"}, "--noise"},
		{"replay noise 150%", []string{"replay", sharedHostRun, "--noise", "150%"}, "--noise"},
		{"report noise 5", []string{"report", sharedHostRun, "--noise", "5"}, "--noise"},
		{"report noise 150%", []string{"report", sharedHostRun, "--noise", "150%"}, "--noise"},
		{"report error bound 1", []string{"report", sharedHostRun, "--error-bound", "1"}, "--error-bound"},
		{"export noise 5", []string{"export", sharedHostRun, "--cpus", "1", "--noise", "5"}, "--noise"},
		{"plan precision 2", []string{"plan", "--cpus", "1", "--precision", "2"}, "--precision"},
		{"run precision 150%", append(run, "--precision", "150%"), "--precision"},
	} {
		start := time.Now()
		code, _, errOut := runCLI(t, tc.args...)
		if code != exitBadInput || !strings.HasPrefix(errOut, "sweep: "+tc.flag+": ") {
			t.Errorf("%s: exit %d, %q; want 2 naming %s", tc.name, code, errOut, tc.flag)
		}
		for _, form := range []string{"a percent", "a fraction below 1"} {
			if !strings.Contains(errOut, form) {
				t.Errorf("%s: %q does not name %s", tc.name, errOut, form)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s to refuse", tc.name, d)
		}
	}
}

// TestFailOnWantsPercents: a --fail-on limit is a percent with its sign;
// a bare number (0.5 points, or 50 %?) is refused, naming --fail-on.
func TestFailOnWantsPercents(t *testing.T) {
	t.Parallel()
	for _, gate := range []string{"errors:+0.5", "rps:-5", "rps:5%"} {
		code, _, errOut := runCLI(t, "compare", sharedHostRun, sharedHostRun, "--fail-on", gate)
		if code != exitBadInput || !strings.HasPrefix(errOut, "sweep: --fail-on: gate ") {
			t.Errorf("--fail-on %s: exit %d, %q; want 2 naming --fail-on", gate, code, errOut)
		}
	}
}
