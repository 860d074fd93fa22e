package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

// envReaders are the calls that read the process environment: the
// standard library's, and the libraries' own readers of it.
var envReaders = map[string][]string{
	"os":                              {"Getenv", "LookupEnv", "Environ"},
	"github.com/docker/docker/client": {"FromEnv", "WithHostFromEnv", "WithTLSClientConfigFromEnv", "WithVersionFromEnv"},
	"github.com/compose-spec/compose-go/v2/cli": {"WithOsEnv"},
}

// TestEnvironmentIsReadAtTheEdge reads the tree's source: only a binary's
// main.go (under cmd/, bench/ or examples/) reads the process environment
// (cmd/sweep's once, into the Env every command hands the library);
// library packages take it as a value.
// The test helpers of internal/ and the testdata programs are not
// library code.
func TestEnvironmentIsReadAtTheEdge(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || name == "internal" || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, path)
		top, _, _ := strings.Cut(rel, string(filepath.Separator))
		edge := name == "main.go" && (top == "cmd" || top == "bench" || top == "examples")
		for _, call := range envCalls(t, path) {
			if !edge {
				t.Errorf("%s reads the process environment (%s): take a sweep.Env from the caller; only a binary's main.go reads it", rel, call)
			}
		}
		return nil
	})
	if err != nil || files < 200 {
		t.Fatalf("read %d files (%v); the walk missed the tree", files, err)
	}
}

// envCalls lists the environment readers the file at path names, as
// pkg.Func at line N.
func envCalls(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	local := map[string]string{} // the file's name for each package of envReaders
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := envReaders[p]; !ok {
			continue
		}
		n := filepath.Base(p)
		if p == "github.com/compose-spec/compose-go/v2/cli" {
			n = "cli"
		}
		if imp.Name != nil {
			n = imp.Name.Name
		}
		local[n] = p
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || local[id.Name] == "" {
			return true
		}
		for _, fn := range envReaders[local[id.Name]] {
			if sel.Sel.Name == fn {
				out = append(out, id.Name+"."+fn+" at line "+strconv.Itoa(fset.Position(sel.Pos()).Line))
			}
		}
		return true
	})
	return out
}

// TestRunHandsTheEnvironmentToTheCommands: the environment run is given
// reaches a command (here clean's engine, at a DOCKER_HOST where nothing
// listens), not only the root: cobra's ExecuteContext replaces the root's
// context with its own, which once dropped it and had every command talk
// to the default engine.
func TestRunHandsTheEnvironmentToTheCommands(t *testing.T) {
	t.Parallel()
	host := "unix://" + filepath.Join(t.TempDir(), "no-docker.sock")
	// a run id nobody has, so that even the default engine would lose nothing
	err := run(t.Context(), []string{"clean", "--run", "00000000-000000-e2v0e2"}, sweep.Env{"DOCKER_HOST=" + host}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no-docker.sock") {
		t.Fatalf("clean with DOCKER_HOST=%s: %v, want the engine there not answering", host, err)
	}
}
