package testenv

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is registered once here, so every test binary that imports
// testenv accepts -update and no package defines its own.
var update = flag.Bool("update", false, "rewrite the golden files and generated fixtures under testdata/")

// Update reports whether the test binary runs with -update, for tests
// that regenerate more than one file (whole fixture trees).
func Update() bool { return *update }

// Golden compares got with the file at path. With -update it writes got
// there instead (creating the directory). A mismatch fails the test with a
// line diff; a missing file fails it with a hint to run -update.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, Diff(want, got))
	}
}

// diffContext is how many equal lines Diff shows around a change.
const diffContext = 2

// Diff is a line diff from want to got: removed lines prefixed "-", added
// ones "+", a little context around them, and an "@@ -want +got" header
// with line numbers before each hunk. Files too large for the quadratic
// comparison show only their first differing line.
func Diff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	if len(w)*len(g) > 4_000_000 {
		return firstDifference(w, g)
	}
	ops := lineOps(w, g)
	show := make([]bool, len(ops))
	for i, op := range ops {
		if op.kind != ' ' {
			for j := max(0, i-diffContext); j <= min(len(ops)-1, i+diffContext); j++ {
				show[j] = true
			}
		}
	}
	var b strings.Builder
	for i, op := range ops {
		if !show[i] {
			continue
		}
		if i == 0 || !show[i-1] {
			fmt.Fprintf(&b, "@@ -%d +%d\n", op.wantLine, op.gotLine)
		}
		b.WriteString(string(op.kind) + " " + op.text + "\n")
	}
	return b.String()
}

// lineOp is one line of a diff: kind ' ', '-' or '+', its text, and the
// 1-based line numbers in want and got where it stands.
type lineOp struct {
	kind              byte
	text              string
	wantLine, gotLine int
}

// lineOps walks a longest-common-subsequence table of w and g.
func lineOps(w, g []string) []lineOp {
	lcs := make([][]int, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []lineOp
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			ops = append(ops, lineOp{' ', w[i], i + 1, j + 1})
			i, j = i+1, j+1
		case i < len(w) && (j == len(g) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, lineOp{'-', w[i], i + 1, j + 1})
			i++
		default:
			ops = append(ops, lineOp{'+', g[j], i + 1, j + 1})
			j++
		}
	}
	return ops
}

func firstDifference(w, g []string) string {
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("@@ -%d +%d (first difference only)\n- %s\n+ %s\n", i+1, i+1, wl, gl)
		}
	}
	return ""
}
