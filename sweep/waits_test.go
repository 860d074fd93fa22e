package sweep

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// waitsAllowed is the allow-list of the waits TestNoWaitWithoutABound
// finds: each with its reason, for the people who read the code.
const waitsAllowed = "../docs/development/waits.md"

// TestNoWaitWithoutABound reads every non-test Go file of the module
// (the test helpers of internal/ and testdata aside) for the waits that
// can be recognised by their syntax and need a bound they do not show: a
// context with no end (context.Background, TODO or WithoutCancel, other
// than as the parent of a timeout, a deadline or sweep's Bounded, or in a
// binary's main.go), time.Sleep, exec.Command without its context, the
// net/http client without a timeout (http.Get, http.DefaultClient, an
// http.Client without Timeout) and a select with no case that ends it (a
// Done channel, a timer, a default). What is found must be on the
// allow-list docs/development/waits.md with its reason, and what the list
// names must still be found, so the list stays what the code does.
func TestNoWaitWithoutABound(t *testing.T) {
	t.Parallel()
	allowed := readWaitsAllowed(t)
	found := map[waitKey][]string{}
	files := 0
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (d.Name() == "testdata" || d.Name() == "internal" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		for _, w := range waitsIn(t, path) {
			found[w.key] = append(found[w.key], w.at)
		}
		return nil
	})
	if err != nil || files < 200 {
		t.Fatalf("read %d files (%v); the walk missed the module", files, err)
	}
	for k, at := range found {
		if !allowed[k] {
			t.Errorf("%s: %s in %s without a bound it shows: bound it, or put it on %s with the reason it ends",
				strings.Join(at, ", "), k.kind, k.fn, waitsAllowed)
		}
	}
	for k := range allowed {
		if found[k] == nil {
			t.Errorf("%s lists %s in %s of %s, which the code no longer has: take it off", waitsAllowed, k.kind, k.fn, k.file)
		}
	}
}

// TestWaitsWithoutABoundAreFound: the check finds each kind of wait
// without a bound, and lets the bounded forms pass.
func TestWaitsWithoutABoundAreFound(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "lib")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `package lib

import (
	"context"
	"net/http"
	"os/exec"
	"time"
)

type T struct{}

func (T) waits(ctx context.Context, ch chan int) {
	_ = context.Background()                       // fault: context.Background()
	_ = context.WithoutCancel(ctx)                 // fault: context.WithoutCancel()
	time.Sleep(time.Second)                        // fault: time.Sleep
	_ = exec.Command("k6")                         // fault: exec.Command
	_, _ = http.Get("http://x")                    // fault: http.Get
	_ = &http.Client{}                             // fault: http.Client without Timeout
	select {                                       // fault: select without a bound
	case <-ch:
	}
	_, c := context.WithTimeout(context.Background(), time.Second)
	_, c = context.WithDeadline(context.WithoutCancel(ctx), time.Now())
	defer c()
	_ = Bounded(context.WithoutCancel(ctx), nil, nil)
	_, _ = BoundedGet[int](context.Background(), nil, nil)
	_ = exec.CommandContext(ctx, "k6")
	_ = &http.Client{Timeout: time.Second}
	t := time.NewTimer(time.Second)
	select {
	case <-ch:
	case <-ctx.Done():
	}
	select {
	case <-ch:
	case <-t.C:
	}
	select {
	case <-ch:
	case <-time.After(time.Second):
	}
	select {
	case <-ch:
	default:
	}
}
`
	path := filepath.Join(dir, "lib.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range waitsIn(t, path) {
		if w.key.fn != "T.waits" {
			t.Errorf("%s: in %q, want T.waits", w.at, w.key.fn)
		}
		got = append(got, fmt.Sprintf("%s %s", w.at[strings.LastIndex(w.at, ":")+1:], w.key.kind))
	}
	want := []string{"13 context.Background()", "14 context.WithoutCancel()", "15 time.Sleep", "16 exec.Command",
		"17 http.Get", "18 http.Client without Timeout", "19 select without a bound"}
	if !slices.Equal(got, want) {
		t.Errorf("found\n%q\nwant\n%q", got, want)
	}
}

// waitKey is one kind of wait in one function of one file: the unit of
// the allow-list.
type waitKey struct {
	file, fn, kind string // file from the module's root, with slashes
}

// wait is a wait found at a line (file:line).
type wait struct {
	key waitKey
	at  string
}

// waitsIn lists the waits without a bound in the Go file at path.
func waitsIn(t *testing.T, path string) []wait {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel("..", path)
	rel = filepath.ToSlash(rel)
	main := f.Name.Name == "main" && filepath.Base(path) == "main.go"
	bounds := map[ast.Expr]bool{} // the parents of a timeout, deadline or Bounded
	var out []wait
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if r := receiverName(fn); r != "" {
			name = r + "." + name
		}
		ast.Inspect(fn, func(n ast.Node) bool {
			kind := waitKind(n, bounds, main)
			if kind != "" {
				out = append(out, wait{waitKey{rel, name, kind}, fmt.Sprintf("%s:%d", rel, fset.Position(n.Pos()).Line)})
			}
			return true
		})
	}
	return out
}

// waitKind names the wait without a bound node n is, or "". A call that
// bounds a context marks its first argument in bounds first, as
// ast.Inspect visits a call before its arguments.
func waitKind(n ast.Node, bounds map[ast.Expr]bool, main bool) string {
	switch n := n.(type) {
	case *ast.CallExpr:
		pkg, fn := selector(n.Fun)
		if len(n.Args) > 0 && (pkg == "context" && (fn == "WithTimeout" || fn == "WithDeadline") ||
			(pkg == "" || pkg == "sweep") && (fn == "Bounded" || fn == "BoundedGet")) {
			bounds[n.Args[0]] = true
		}
		switch {
		case pkg == "context" && (fn == "Background" || fn == "TODO" || fn == "WithoutCancel"):
			if bounds[n] || main && fn != "WithoutCancel" {
				return ""
			}
			return "context." + fn + "()"
		case pkg == "time" && fn == "Sleep", pkg == "exec" && fn == "Command":
			return pkg + "." + fn
		case pkg == "http" && (fn == "Get" || fn == "Head" || fn == "Post" || fn == "PostForm"):
			return "http." + fn
		}
	case *ast.SelectorExpr:
		if pkg, fn := selector(n); pkg == "http" && fn == "DefaultClient" {
			return "http.DefaultClient"
		}
	case *ast.CompositeLit:
		if pkg, typ := selector(n.Type); pkg == "http" && typ == "Client" && !hasField(n, "Timeout") {
			return "http.Client without Timeout"
		}
	case *ast.SelectStmt:
		for _, c := range n.Body.List {
			if cc := c.(*ast.CommClause); cc.Comm == nil || endsWait(cc.Comm) {
				return ""
			}
		}
		return "select without a bound"
	}
	return ""
}

// endsWait reports whether a select's case receives from what ends a
// wait: a Done channel, a timer's or ticker's C, time.After.
func endsWait(comm ast.Stmt) bool {
	var ch ast.Expr
	switch s := comm.(type) {
	case *ast.ExprStmt:
		ch = s.X
	case *ast.AssignStmt:
		ch = s.Rhs[0]
	default:
		return false // a send
	}
	u, ok := ch.(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return false
	}
	switch x := u.X.(type) {
	case *ast.CallExpr:
		pkg, fn := selector(x.Fun)
		return fn == "Done" || pkg == "time" && fn == "After"
	case *ast.SelectorExpr:
		return x.Sel.Name == "C"
	}
	return false
}

// selector splits x.Name into x (when x is an identifier) and Name; a
// bare Name (a function of the file's own package, instantiated or not)
// is "" and Name.
func selector(e ast.Expr) (pkg, name string) {
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return "", id.Name
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return "", ""
	}
	if id, ok := sel.X.(*ast.Ident); ok {
		pkg = id.Name
	}
	return pkg, sel.Sel.Name
}

// hasField reports whether a composite literal sets field name.
func hasField(lit *ast.CompositeLit, name string) bool {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if key, ok := kv.Key.(*ast.Ident); ok && key.Name == name {
				return true
			}
		}
	}
	return false
}

// readWaitsAllowed reads the allow-list's table: | `file` | `function` |
// `wait` | why |, a reason on every row.
func readWaitsAllowed(t *testing.T) map[waitKey]bool {
	t.Helper()
	f, err := os.Open(waitsAllowed)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[waitKey]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 || strings.TrimSpace(cells[3]) == "" {
			t.Errorf("%s: %q is not | `file` | `function` | `wait` | why |", waitsAllowed, line)
			continue
		}
		unquote := func(s string) string { return strings.Trim(strings.TrimSpace(s), "`") }
		out[waitKey{unquote(cells[0]), unquote(cells[1]), unquote(cells[2])}] = true
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("%s: %d entries (%v)", waitsAllowed, len(out), err)
	}
	return out
}
