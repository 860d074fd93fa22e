package fixturestate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errNotUp = errors.New("fixture is not up")

// TestRead: a missing file wraps the fixture's not-up error, a file that
// is no JSON names its path, a good one is decoded.
func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var v struct{ A int }
	if err := Read(filepath.Join(dir, "none.json"), errNotUp, &v); !errors.Is(err, errNotUp) || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: %v, want not up naming the file", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("export X=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Read(bad, errNotUp, &v); err == nil || errors.Is(err, errNotUp) || !strings.Contains(err.Error(), bad) {
		t.Errorf("not JSON: %v, want an error naming %s that is not 'not up'", err, bad)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"A": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Read(good, errNotUp, &v); err != nil || v.A != 3 {
		t.Errorf("good file: %+v, %v; want A=3", v, err)
	}
}

// TestDir: the variable wins when set, else the default.
func TestDir(t *testing.T) {
	t.Setenv("SWEEP_FIXTURESTATE_TEST_DIR", "")
	if d := Dir("SWEEP_FIXTURESTATE_TEST_DIR", "/var/lib/x"); d != "/var/lib/x" {
		t.Errorf("unset: %q, want the default", d)
	}
	t.Setenv("SWEEP_FIXTURESTATE_TEST_DIR", "/tmp/y")
	if d := Dir("SWEEP_FIXTURESTATE_TEST_DIR", "/var/lib/x"); d != "/tmp/y" {
		t.Errorf("set: %q, want /tmp/y", d)
	}
}
