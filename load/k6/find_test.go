package k6

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func writeExec(t *testing.T, path, body string, mode os.FileMode) string {
	t.Helper()
	writeExecutable(t, path, "#!/bin/sh\n"+body+"\n", mode)
	return path
}

// writeExecutable writes a program that a test then runs. The file is
// written by a child (install), never through a descriptor of this process:
// a parallel test that forks while this process holds the file open for
// writing hands that descriptor to its child until the child execs, and
// running the file then fails with "text file busy" (ETXTBSY, golang.org/issue/22315).
func writeExecutable(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	src := path + ".src"
	if err := os.WriteFile(src, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("install", "-m", fmt.Sprintf("%o", mode.Perm()), src, path).CombinedOutput(); err != nil {
		t.Fatalf("install %s: %v: %s", path, err, out)
	}
	if err := os.Remove(src); err != nil {
		t.Fatal(err)
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	bin := writeExec(t, filepath.Join(dir, "k6"), "exit 0", 0o755)
	plain := writeExec(t, filepath.Join(dir, "not-executable"), "exit 0", 0o644)
	tests := []struct {
		name    string
		flag    string
		path    string // PATH during the test
		want    string
		wantErr bool
	}{
		{name: "flag path", flag: bin, path: t.TempDir(), want: bin},
		{name: "on PATH", path: dir, want: bin},
		{name: "flag path missing", flag: filepath.Join(dir, "nope"), path: dir, wantErr: true},
		{name: "flag path not executable", flag: plain, path: dir, wantErr: true},
		{name: "not on PATH", path: t.TempDir(), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			got, err := Find(tc.flag)
			if tc.wantErr {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "put it on PATH") {
					t.Errorf("error = %v, want ErrNotFound saying how to get k6", err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Find(%q) = %q, %v; want %q", tc.flag, got, err, tc.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ok := writeExec(t, filepath.Join(dir, "k6"),
		`[ "$1" = version ] && [ "$K6_NO_USAGE_REPORT" = true ] || exit 2
echo 'k6 v2.2.0 (go1.24.4, linux/amd64)'
echo 'Extensions: none'`, 0o755)
	got, err := Version(t.Context(), ok)
	if err != nil || got != "k6 v2.2.0 (go1.24.4, linux/amd64)" {
		t.Errorf("Version = %q, %v", got, err)
	}
	bad := writeExec(t, filepath.Join(dir, "broken"), "echo 'no such command' >&2; exit 1", 0o755)
	if _, err := Version(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "no such command") {
		t.Errorf("broken k6: error = %v, want its stderr", err)
	}
	// Programs that run but are not k6: refused, not recorded as a version.
	for _, bin := range []string{"/bin/true", "/bin/echo"} {
		if _, err := os.Stat(bin); err != nil {
			continue
		}
		if got, err := Version(t.Context(), bin); !errors.Is(err, ErrNotK6) || !strings.Contains(err.Error(), bin) {
			t.Errorf("Version(%s) = %q, %v; want ErrNotK6 naming it", bin, got, err)
		}
	}
}
