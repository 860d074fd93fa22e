package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// commandNames are sweep and every command it has, hidden ones too.
func commandNames(t *testing.T) []string {
	t.Helper()
	names := []string{"sweep"}
	for _, c := range newRootCmd(t.Context(), io.Discard, io.Discard).Commands() {
		names = append(names, c.Name())
	}
	return names
}

// helpOf is what `sweep <command> --help` prints, and fails t unless
// `sweep help <command>` prints the same.
func helpOf(t *testing.T, name string) string {
	t.Helper()
	args := []string{name, "--help"}
	if name == "sweep" {
		args = args[1:]
	}
	code, out, stderr := runCLI(t, args...)
	if code != 0 || stderr != "" {
		t.Fatalf("sweep %v: exit %d, stderr %q", args, code, stderr)
	}
	if name != "sweep" {
		if _, again, _ := runCLI(t, "help", name); again != out {
			t.Errorf("sweep help %s differs from sweep %s --help:\n%s", name, name, testenv.Diff([]byte(out), []byte(again)))
		}
	}
	return out
}

// TestHelpGolden holds every command's --help to testdata/help/<command>.txt
// (go test -update rewrites them): the flags each command shows, their
// groups and their words change only on purpose.
func TestHelpGolden(t *testing.T) {
	t.Parallel()
	for _, name := range commandNames(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testenv.Golden(t, filepath.Join("testdata", "help", name+".txt"), []byte(helpOf(t, name)))
		})
	}
}

// TestEverySpecFlagHasOneUse: each flag bindSpec defines is placed in
// specFlagUse once, so a new flag is given to the commands that read it
// on purpose.
func TestEverySpecFlagHasOneUse(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for _, u := range specFlagUse {
		for _, name := range u.names {
			seen[name]++
		}
	}
	all := pflag.NewFlagSet("all", pflag.ContinueOnError)
	bindSpec(all)
	all.VisitAll(func(fl *pflag.Flag) {
		if seen[fl.Name] != 1 {
			t.Errorf("--%s is in specFlagUse %d times, want once", fl.Name, seen[fl.Name])
		}
		delete(seen, fl.Name)
	})
	for name := range seen {
		t.Errorf("specFlagUse names --%s, which bindSpec does not define", name)
	}
}

// TestFlagOfAnotherCommand: a flag a command does not read is refused
// naming the commands that do.
func TestFlagOfAnotherCommand(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plan", "--cpus", "1", "--keep"}, "--keep: plan does not use it (check, limit and run do); drop it"},
		{[]string{"plan", "--cpus", "1", "--db-dsn", "postgres://x"}, "--db-dsn: plan does not use it"},
		{[]string{"limit", "--cpus", "1", "--strategy", "halving"}, "--strategy: limit does not use it (plan and run do)"},
		{[]string{"check", "--cpus", "1", "--out", "x"}, "--out: check does not use it (limit and run do)"},
		{[]string{"check", "--cpus", "1", "--find-limit"}, "--find-limit: check does not use it (plan and run do)"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitBadInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("sweep %s: exit %d, stderr %q, want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}

// TestConfigKeysOfOtherCommands: one sweep.yaml serves plan, run, check
// and limit; a command passes over the keys of the others and still
// refuses a key none of them has.
func TestConfigKeysOfOtherCommands(t *testing.T) {
	t.Parallel()
	cfg := writeConfig(t, "cpus: [1]\nweb-mult: [1]\ndb-mult: [2]\nservice: app\nkeep: true\ndb-dsn: postgres://x\n"+
		"out: runs/x\norder: shuffle\nweb: 3\nmetrics-addr: 127.0.0.1:0\n")
	if code, out, stderr := runCLI(t, "plan", "--config", cfg); code != 0 || !strings.Contains(out, "cpu_1__web_1__db_2") {
		t.Errorf("plan with run's config: exit %d, %s%s", code, out, stderr)
	}
	bad := writeConfig(t, "cpus: [1]\nkepe: true\n")
	if code, _, stderr := runCLI(t, "plan", "--config", bad); code != exitBadInput || !strings.Contains(stderr, `unknown key "kepe"`) {
		t.Errorf("a key no command has: exit %d, %s", code, stderr)
	}
}

// TestEveryFlagSaysItsDefault: each flag --help shows, but a switch
// (off unless given), says its default or that it is required.
func TestEveryFlagSaysItsDefault(t *testing.T) {
	t.Parallel()
	root := newRootCmd(t.Context(), io.Discard, io.Discard)
	for _, c := range append(root.Commands(), root) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden || fl.Value.Type() == "bool" {
				return
			}
			one := pflag.NewFlagSet("one", pflag.ContinueOnError)
			one.AddFlag(fl)
			if u := one.FlagUsages(); !strings.Contains(u, "default") && !strings.Contains(u, "required") {
				t.Errorf("%s --%s says neither its default nor that it is required: %s", c.Name(), fl.Name, u)
			}
		})
	}
}
