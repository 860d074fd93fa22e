package flagfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/sweep"
)

func write(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "conf", "sweep.yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// apply reads the file at path and applies it to fs.
func apply(fs *pflag.FlagSet, path string, paths map[string]Rebase, others ...string) error {
	f, err := Read(path)
	if err != nil {
		return err
	}
	return f.Apply(fs, paths, others...)
}

// TestApply: unset flags take the file's values (a list joins with
// commas, or repeats a string-array flag), a flag given on the command
// line wins, and the path keys are rebased against the file's folder.
func TestApply(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	cpus := fs.String("cpus", "", "")
	url := fs.String("url", "", "")
	files := fs.StringArray("compose", nil, "")
	if err := fs.Parse([]string{"--url", "http://cli"}); err != nil {
		t.Fatal(err)
	}
	path := write(t, "cpus: [1, 2.5]\nurl: http://file\ncompose: [a.yml, /abs/b.yml]\n")
	if err := apply(fs, path, map[string]Rebase{"compose": Rel}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	if *cpus != "1,2.5" || *url != "http://cli" || strings.Join(*files, " ") != filepath.Join(dir, "a.yml")+" /abs/b.yml" {
		t.Errorf("cpus %q, url %q, compose %q; want 1,2.5, the command line's URL, the files from %s", *cpus, *url, *files, dir)
	}
}

// TestApplyPassesOverOthers: a key of another command sharing the file
// is passed over, even with a value none of fs's flags would take; the
// others do not make a key of fs's own unknown.
func TestApplyPassesOverOthers(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	cpus := fs.String("cpus", "", "")
	if err := apply(fs, write(t, "cpus: 2\nkeep: {not: a value}\n"), nil, "keep", "cpus"); err != nil || *cpus != "2" {
		t.Errorf("cpus %q, %v; want 2 and the other command's key passed over", *cpus, err)
	}
}

func TestApplyRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, text, want string }{
		{"unknown key", "nope: 1\n", `unknown key "nope"`},
		{"the config key", "config: x.yaml\n", `unknown key "config"`},
		{"a map value", "cpus: {a: 1}\n", "expected a value or a list of values"},
		{"not yaml", ": : :\n", "is not valid YAML"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.String("cpus", "", "")
		fs.String("config", "", "")
		err := apply(fs, write(t, tc.text), nil)
		var bad *sweep.BadInputError
		if !errors.As(err, &bad) || bad.Field != "config" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want bad input of config saying %q", tc.name, err, tc.want)
		}
	}
	if err := apply(pflag.NewFlagSet("t", pflag.ContinueOnError), "/nonexistent.yaml", nil); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("missing file: %v, want bad input", err)
	}
}
