package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n",
			"@@ -2 +2\n  b\n  c\n- d\n+ D\n  e\n  f\n"},
		{"added at end", "a\n", "a\nb\n", "@@ -1 +1\n  a\n+ b\n  \n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "x\n2\n3\n4\n5\n6\n7\n8\ny\n",
			"@@ -1 +1\n- 1\n+ x\n  2\n  3\n@@ -7 +7\n  7\n  8\n- 9\n+ y\n  \n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if d := Diff([]byte(tc.want), []byte(tc.got)); d != tc.diff {
				t.Errorf("Diff =\n%s\nwant\n%s", d, tc.diff)
			}
		})
	}
}

// TestGoldenMismatch runs Golden on a fake test and checks that a
// difference fails it and that a match does not.
func TestGoldenMismatch(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if *update {
		t.Skip("-update rewrites instead of comparing")
	}
	tests := []struct {
		name     string
		got      string
		wantFail bool
	}{
		{"same", "a\nb\n", false},
		{"different", "a\nc\n", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			Golden(rec, path, []byte(tc.got))
			if rec.failed != tc.wantFail {
				t.Errorf("failed = %v, want %v (%s)", rec.failed, tc.wantFail, rec.msg)
			}
		})
	}
}

// recorder is a testing.TB that notes Errorf instead of failing.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = fmt.Sprintf(format, args...)
}
