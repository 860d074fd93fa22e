package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/sweep-tool/sweep/internal/doccheck"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// cliDocs is where the CLI reference is generated.
func cliDocs(t *testing.T) string { return filepath.Join(repoRoot(t), "docs", "reference", "cli") }

// TestCLIReference keeps docs/reference/cli what cobra's doc generator
// makes of the commands today: it generates the tree into a temporary
// directory and compares it file by file. make docs (go test -update)
// writes it instead.
func TestCLIReference(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	root := newRootCmd(t.Context(), io.Discard, io.Discard)
	disableAutoGenTag(root)
	if err := doc.GenMarkdownTree(root, tmp); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, tmp)
	if testenv.Update() {
		if err := os.RemoveAll(cliDocs(t)); err != nil {
			t.Fatal(err)
		}
		if err := os.CopyFS(cliDocs(t), os.DirFS(tmp)); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readTree(t, cliDocs(t))
	for name, g := range got {
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("docs/reference/cli/%s is missing (make docs writes it)", name)
		case !bytes.Equal(g, w):
			t.Errorf("docs/reference/cli/%s is stale (make docs rewrites it):\n%s", name, testenv.Diff(w, g))
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("docs/reference/cli/%s names no command (make docs removes it)", name)
		}
	}
}

// disableAutoGenTag drops the generator's dated footer, so the files
// change only when the commands do.
func disableAutoGenTag(c *cobra.Command) {
	c.DisableAutoGenTag = true
	for _, sub := range c.Commands() {
		disableAutoGenTag(sub)
	}
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (make docs generates the CLI reference)", err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// TestDocCommandsParse reads every sweep command line of the ```sh and
// ```console blocks of README.md and docs/ (the generated CLI reference
// aside) and checks, without running it, that the command exists, that
// every flag exists and takes its value, and that the arguments are as
// many as the command accepts.
func TestDocCommandsParse(t *testing.T) {
	t.Parallel()
	files, err := doccheck.Files(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasPrefix(f, "docs/reference/cli/") {
			continue
		}
		for _, cmd := range docCommands(t, f) {
			n++
			if err := parseOnly(t, cmd.Args); err != nil {
				t.Errorf("%s:%d: sweep %s: %v", f, cmd.Line, strings.Join(cmd.Args, " "), err)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d sweep commands found in the docs: is the extraction broken?", n)
	}
	t.Logf("%d sweep commands parsed", n)
}

// parseOnly finds the command args name and parses its flags and
// arguments the way Execute would, without running it.
func parseOnly(t *testing.T, args []string) error {
	root := newRootCmd(t.Context(), io.Discard, io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	cmd.InitDefaultHelpFlag()
	cmd.InitDefaultVersionFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if help, _ := cmd.Flags().GetBool("help"); help {
		return nil
	}
	return cmd.ValidateArgs(cmd.Flags().Args())
}

func docCommands(t *testing.T, file string) []doccheck.Command {
	t.Helper()
	var cmds []doccheck.Command
	for _, b := range docBlocks(t, file) {
		c, err := doccheck.Commands(b)
		if err != nil {
			t.Errorf("%s: %v", file, err)
		}
		cmds = append(cmds, c...)
	}
	return cmds
}

func docBlocks(t *testing.T, file string) []doccheck.Block {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(repoRoot(t), file))
	if err != nil {
		t.Fatal(err)
	}
	return doccheck.Blocks(string(src))
}

// TestReadmeRuns runs the README's commands that need no Docker Engine,
// for real, in a directory of their own: the blocks marked
// `<!-- doc-test: file NAME -->` are written there as NAME (the
// own-stack sweep.yaml), the study's run (report/testdata/gop) is copied
// there as runs/night1 (the run of the morning after), and every sweep
// line of the blocks marked `<!-- doc-test: run -->` must exit 0. The
// blocks marked `docker` need an engine and are only parsed (above).
func TestReadmeRuns(t *testing.T) {
	blocks := docBlocks(t, "README.md")
	sandbox := t.TempDir()
	if err := os.CopyFS(filepath.Join(sandbox, "runs", "night1"), os.DirFS(filepath.Join(repoRoot(t), "report", "testdata", "gop"))); err != nil {
		t.Fatal(err)
	}
	var run []doccheck.Block
	for _, b := range blocks {
		if name, ok := strings.CutPrefix(b.Marker, "file "); ok {
			if err := os.WriteFile(filepath.Join(sandbox, name), []byte(strings.Join(b.Lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if b.Marker == "run" {
			run = append(run, b)
		}
	}
	t.Chdir(sandbox)
	n := 0
	for _, b := range run {
		cmds, err := doccheck.Commands(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cmds {
			n++
			code, out, stderr := runCLIEnv(t, sweep.Env(os.Environ()), c.Args...)
			if code != 0 {
				t.Errorf("README.md:%d: %s: exit %d\n%s%s", c.Line, c.Text, code, out, stderr)
			}
		}
	}
	if n < 4 {
		t.Errorf("only %d README commands marked to run", n)
	}
}

// TestReadmeSample checks the README's sample of sweep report against
// what sweep report prints today on the run the marker names
// (`<!-- doc-test: sample DIR -->`, DIR relative to the repository): each
// line of the sample is a line of the output, in the output's order;
// lines may be left out between them, which a line "…" marks for the
// reader.
func TestReadmeSample(t *testing.T) {
	t.Parallel()
	found := false
	for _, b := range docBlocks(t, "README.md") {
		dir, ok := strings.CutPrefix(b.Marker, "sample ")
		if !ok {
			continue
		}
		found = true
		run := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(run, os.DirFS(filepath.Join(repoRoot(t), dir))); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runCLI(t, "report", run)
		if code != 0 {
			t.Fatalf("sweep report %s: exit %d: %s", dir, code, stderr)
		}
		if missing := notIn(b.Lines, strings.Split(out, "\n")); missing != "" {
			t.Errorf("README.md:%d: the sample of sweep report %s is not what it prints: %q is not there (in order)\nit prints:\n%s",
				b.Line, dir, missing, out)
		}
	}
	if !found {
		t.Error("README.md has no block marked <!-- doc-test: sample DIR -->")
	}
}

// notIn returns the first line of sample that is not found in out after
// the lines before it ("…" skips), or "" when all are.
func notIn(sample, out []string) string {
	i := 0
	for _, s := range sample {
		s = strings.TrimRight(s, " ")
		if s == "…" || s == "" {
			continue
		}
		j := slices.IndexFunc(out[i:], func(o string) bool { return strings.TrimRight(o, " ") == s })
		if j < 0 {
			return s
		}
		i += j + 1
	}
	return ""
}
