package main

import (
	"io"
	"path/filepath"
	"testing"

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
