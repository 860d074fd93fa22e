package sweep

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// modulePath is this module's import path; the core is modulePath/sweep.
const modulePath = "github.com/sweep-tool/sweep"

// TestBadInputAlwaysNamesItsInput reads every non-test Go file of the
// module: bad input is built with BadInput or a BadInputError that names
// its Field, never by wrapping ErrBadInput (fmt.Errorf("%w: …",
// sweep.ErrBadInput)), which leaves the CLI nothing to name the flag by.
// ErrBadInput may be named only here in errors.go, by OverLimitError's
// Unwrap (its message names {over_limit}) and as the target of errors.Is;
// cmd/sweep's badFlag alone builds a BadInputError without a Field (see
// fieldless).
func TestBadInputAlwaysNamesItsInput(t *testing.T) {
	t.Parallel()
	files := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		for _, p := range badInputFaults(t, path) {
			t.Error(p)
		}
		return nil
	})
	if err != nil || files < 100 {
		t.Fatalf("read %d files (%v); the walk missed the module", files, err)
	}
}

// TestBadInputFaultsAreFound: the check finds each way of building bad
// input without its field, and lets the ways that name it pass.
func TestBadInputFaultsAreFound(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "lib")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `package lib

import (
	"errors"
	"fmt"

	core "` + modulePath + `/sweep"
)

func bad(n int) error {
	_ = fmt.Errorf("%w: %d is too many", core.ErrBadInput, n) // fault
	_ = core.BadInput("", "no field")                            // fault
	_ = &core.BadInputError{Msg: "no field"}                     // fault
	_ = errors.Is(nil, core.ErrBadInput)
	_ = core.BadInput("seeds", "%d is too many", n)
	return &core.BadInputError{Field: "seeds", Msg: "too many"}
}
`
	path := filepath.Join(dir, "lib.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	faults := badInputFaults(t, path)
	if len(faults) != 3 {
		t.Fatalf("found %d faults, want 3: %q", len(faults), faults)
	}
	for i, line := range []string{":11:", ":12:", ":13:"} {
		if !strings.Contains(faults[i], line) {
			t.Errorf("fault %d is %q, want one at line %s", i, faults[i], line)
		}
	}
}

// fieldless are the functions, by file, that may build a BadInputError
// without a Field: the CLI's parse errors name the flag the user typed,
// which may be one no command has, in the message itself.
var fieldless = map[string]string{"cmd/sweep/root.go": "badFlag"}

// badInputFaults are the places in the Go file at path that build bad
// input without naming its field.
func badInputFaults(t *testing.T, path string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := newFileCheck(f, path)
	if c == nil {
		return nil
	}
	var faults []string
	ast.Inspect(f, func(n ast.Node) bool {
		what, descend := c.fault(n)
		if what != "" {
			faults = append(faults, fset.Position(n.Pos()).String()+": "+what)
		}
		return descend
	})
	return faults
}

// fileCheck checks one file's use of the core's bad-input names.
type fileCheck struct {
	core      string // the name the file imports the core as; "" in the core
	errorsPkg string // the name it imports errors as
	inCore    bool
	path      string            // with forward slashes
	isTarget  map[ast.Expr]bool // ErrBadInput as the target of errors.Is
}

// newFileCheck is the check of f at path; nil when f cannot build bad
// input (it does not import the core) or defines the idiom (errors.go).
func newFileCheck(f *ast.File, path string) *fileCheck {
	c := &fileCheck{core: importName(f, modulePath+"/sweep"), errorsPkg: importName(f, "errors"),
		path: filepath.ToSlash(path), isTarget: map[ast.Expr]bool{}}
	c.inCore = f.Name.Name == "sweep" && filepath.Base(filepath.Dir(path)) == "sweep"
	switch {
	case c.inCore && strings.HasSuffix(c.path, "/sweep/errors.go"):
		return nil
	case c.inCore:
		c.core = "" // the core names its own identifiers bare
	case c.core == "-":
		return nil
	}
	return c
}

// fault says what is wrong with node n, if anything, and whether to look
// inside it.
func (c *fileCheck) fault(n ast.Node) (what string, descend bool) {
	switch n := n.(type) {
	case *ast.FuncDecl:
		return "", !c.exempt(n)
	case *ast.CallExpr:
		if sel, ok := n.Fun.(*ast.SelectorExpr); ok && len(n.Args) == 2 && sel.Sel.Name == "Is" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == c.errorsPkg {
				c.isTarget[n.Args[1]] = true
			}
		}
		if c.names(n.Fun, "BadInput") && len(n.Args) > 0 && isEmptyString(n.Args[0]) {
			return "BadInput with an empty field", true
		}
	case *ast.CompositeLit:
		if c.names(n.Type, "BadInputError") && !namesField(n) {
			return "a BadInputError without its Field", true
		}
	case ast.Expr:
		if c.names(n, "ErrBadInput") && !c.isTarget[n] {
			return "ErrBadInput used beside errors.Is: build bad input with BadInput(field, …)", false
		}
	}
	return "", true
}

// exempt reports whether fn may use the sentinel or leave out the field:
// OverLimitError's Unwrap, and the fieldless functions.
func (c *fileCheck) exempt(fn *ast.FuncDecl) bool {
	if c.inCore && fn.Name.Name == "Unwrap" && receiverName(fn) == "OverLimitError" {
		return true
	}
	for file, name := range fieldless {
		if strings.HasSuffix(c.path, "/"+file) && fn.Name.Name == name && fn.Recv == nil {
			return true
		}
	}
	return false
}

// names reports whether e is the core's identifier name.
func (c *fileCheck) names(e ast.Expr, name string) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return c.core == "" && e.Name == name
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		return ok && c.core != "" && x.Name == c.core && e.Sel.Name == name
	}
	return false
}

// importName is the name path is imported as in f: its last element
// unless renamed; "-" when f does not import it.
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return "-"
}

// receiverName is the type name of fn's receiver, without its star.
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	e := fn.Recv.List[0].Type
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// namesField reports whether a BadInputError literal sets a Field that
// is not the empty string.
func namesField(lit *ast.CompositeLit) bool {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok && key.Name == "Field" {
				return !isEmptyString(kv.Value)
			}
		}
	}
	return false
}

func isEmptyString(e ast.Expr) bool {
	lit, ok := e.(*ast.BasicLit)
	return ok && lit.Kind == token.STRING && (lit.Value == `""` || lit.Value == "``")
}
