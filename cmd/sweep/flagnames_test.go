package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

func TestMessageNamesFieldsAsFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{sweep.BadInput("web_mult", "no web multipliers"), "--web-mult: no web multipliers"},
		{sweep.BadInput("find_limit.start_level", "%d is above {find_limit.max_level} %d", 9, 5), "--start-level: 9 is above --max-level 5"},
		{sweep.BadInput("allow_large", "narrow it or pass {allow_large}"), "--yes: narrow it or pass --yes"},
		{sweep.BadInput("axes", "bad"), "--axis: bad"},
		{sweep.BadInput("run_dir", "x is not a run directory"), "--run: x is not a run directory"},
		{fmt.Errorf("check: %w", sweep.BadInput("load.max_vus", "must be >= 0")), "check: --max-vus: must be >= 0"},
		{errors.New("too many failed cells: 3 ({max_failures} 3)"), "too many failed cells: 3 (--max-failures 3)"},
		// a name no command has stays as it is
		{sweep.BadInput("cpus", "%q is not a number", "{nope}"), `--cpus: "{nope}" is not a number`},
	} {
		if got := message(tc.err); got != tc.want {
			t.Errorf("message(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

// TestEveryLibraryFieldHasAFlag reads the library's source: every field a
// BadInput names, and every {field} its messages point to, is one the CLI
// can name, so no user ever reads "{field}".
func TestEveryLibraryFieldHasAFlag(t *testing.T) {
	t.Parallel()
	badInput := regexp.MustCompile(`BadInput\("([a-z][a-z0-9_.-]*)",\s*"([^"]*)"`)
	field := regexp.MustCompile(`BadInputError{Field:\s*"([a-z][a-z0-9_.-]*)"`)
	ref := regexp.MustCompile(`\{([a-z][a-z0-9_.-]*)\}`)
	root := filepath.Join("..", "..")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "cmd" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var names []string
		for _, m := range badInput.FindAllStringSubmatch(string(src), -1) {
			names = append(names, m[1])
			for _, r := range ref.FindAllStringSubmatch(m[2], -1) {
				names = append(names, r[1])
			}
		}
		for _, m := range field.FindAllStringSubmatch(string(src), -1) {
			names = append(names, m[1])
		}
		for _, n := range names {
			seen++
			if _, ok := nameOf(n); !ok {
				t.Errorf("%s: the field %q has no flag to be named by", path, n)
			}
		}
		return nil
	})
	if err != nil || seen < 50 {
		t.Fatalf("read %d fields (%v); the walk missed the library", seen, err)
	}
}

// TestLibraryBadInputNamesTheFlag: bad input the libraries once built by
// wrapping sweep.ErrBadInput, with no field, now names the flag (or the
// run) at fault, in the CLI's words.
func TestLibraryBadInputNamesTheFlag(t *testing.T) {
	t.Parallel()
	axes := writeSpecRun(t, "--cpus", "1", "--web-mult", "1", "--db-mult", "2", "--axis", "memory=256m,1g")
	other := writeSpecRun(t, "--cpus", "3", "--web-mult", "1", "--db-mult", "2")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", sharedHostRun, "--seeds", "-1"}, "sweep: --seeds: -1 replays asked for\n"},
		{[]string{"replay", filepath.Join("..", "..", "report", "testdata", "gop")},
			"sweep: --report: run game-of-pools: its cells' warm-up 0s and duration 0s give no halving plan: round 1 measures 0s, less than 2s\n"},
		{[]string{"compare", sharedHostRun, other}, "sweep: --report: runs 20261201-112156-97f17b and 20260101-000000 share no measured configuration\n"},
		{[]string{"compare", sharedHostRun, other, "--fail-on", "rps"}, "sweep: --fail-on: gate \"rps\": want metric:±N%\n"},
		{[]string{"compare", sharedHostRun, other, "--fail-on", ","}, "sweep: --fail-on: is an empty list; give gates such as rps:-5%,p99:+10%\n"},
		{[]string{"export", axes, "--cpus", "1"}, "sweep: --report: run 20260101-000000 has extra axes (2 slices: memory=256m; memory=1g); export reads a run of one grid\n"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitBadInput || stderr != tc.want {
			t.Errorf("sweep %s: exit %d, %q; want 2, %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}
