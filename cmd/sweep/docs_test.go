package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/sweep-tool/sweep/internal/testenv"
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
