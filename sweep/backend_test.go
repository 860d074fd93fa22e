package sweep

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRunLabels: a run without a directory is labelled by its id alone;
// with one, by the directory's absolute path and this host's name too.
func TestRunLabels(t *testing.T) {
	t.Parallel()
	l, err := StackOptions{RunID: "r1"}.RunLabels()
	if err != nil || l != (RunLabels{ID: "r1"}) {
		t.Errorf("no run directory: %+v, %v; want the id alone", l, err)
	}
	if m := l.Map(); len(m) != 1 || m[LabelRun] != "r1" {
		t.Errorf("labels without a directory: %v; want sweep.run alone", m)
	}
	host, _ := os.Hostname()
	abs, _ := filepath.Abs("runs/r1")
	l, err = StackOptions{RunID: "r1", RunDir: "runs/r1"}.RunLabels()
	if err != nil || l != (RunLabels{ID: "r1", Dir: abs, Host: host}) {
		t.Errorf("with a run directory: %+v, %v; want dir %s, host %s", l, err, abs, host)
	}
	if m := l.Map(); len(m) != 3 || m[LabelDir] != abs || m[LabelHost] != host {
		t.Errorf("labels with a directory: %v; want sweep.run, sweep.dir and sweep.host", m)
	}
}

// TestEnv: Get and Lookup read the last line of a key, as the process
// environment does; a key that is a prefix of another is not it; With
// puts lines after, so they win, and leaves the original alone.
func TestEnv(t *testing.T) {
	t.Parallel()
	env := Env{"A=1", "AB=2", "A=3", "EMPTY=", "NOEQUALS"}
	for _, c := range []struct {
		key, want string
		set       bool
	}{{"A", "3", true}, {"AB", "2", true}, {"EMPTY", "", true}, {"NOEQUALS", "", false}, {"B", "", false}} {
		if v, ok := env.Lookup(c.key); v != c.want || ok != c.set {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.key, v, ok, c.want, c.set)
		}
		if v := env.Get(c.key); v != c.want {
			t.Errorf("Get(%q) = %q; want %q", c.key, v, c.want)
		}
	}
	more := env.With("A=4")
	if more.Get("A") != "4" || env.Get("A") != "3" || len(env) != 5 {
		t.Errorf("With: %q, original %q (%d lines); want 4 and the original untouched", more.Get("A"), env.Get("A"), len(env))
	}
	if m := env.Map(); m["A"] != "3" || m["AB"] != "2" || len(m) != 3 {
		t.Errorf("Map = %v; want A=3 AB=2 EMPTY=", m)
	}
	var none Env
	if v, ok := none.Lookup("PATH"); v != "" || ok {
		t.Errorf("a nil Env has PATH %q, %v; want nothing", v, ok)
	}
}
