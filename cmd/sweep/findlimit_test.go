package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRunFindLimitBadInputStartsNothing(t *testing.T) {
	t.Parallel()
	base := []string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1", "--driver", "builtin",
		"--compose", "/nonexistent/compose.yaml"}
	for _, tc := range []struct {
		name, want string
		args       []string
	}{
		{"slo without find-limit", "--slo", []string{"--slo", "p99<=20ms"}},
		{"max-steps without find-limit", "--max-steps", []string{"--max-steps", "3"}},
		{"slo does not parse", "--slo", []string{"--find-limit", "--slo", "p99<20ms"}},
		{"start above max", "--start-level", []string{"--find-limit", "--start-level", "50", "--max-level", "10"}},
		{"bad model", "--model", []string{"--find-limit", "--model", "users"}},
		{"load levels", "--find-limit", []string{"--find-limit", "--load-levels", "vus=1,2"}},
		{"80 cells of 8 levels need --yes", "--yes", []string{"--find-limit", "--cpus", "2,4,6,8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			args := append(append(slices.Clone(base), tc.args...), "--out", out)
			code, _, stderr := runCLI(t, args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 naming %s", code, stderr, tc.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("bad input created %s (%v)", out, err)
			}
		})
	}
}
