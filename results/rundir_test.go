package results

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFileAtomicNamesThePath checks that a failed write is a
// WriteError naming the file asked for (not the temporary one) and the OS
// error, and leaves no temporary file behind.
func TestWriteFileAtomicNamesThePath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	blocked := filepath.Join(dir, ResultFile)
	if err := os.Mkdir(blocked, 0o755); err != nil { // the rename onto it fails, also for root
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		errno syscall.Errno
	}{
		{blocked, syscall.EEXIST}, // os.Rename refuses a directory as the target
		{filepath.Join(dir, "absent", ResultFile), syscall.ENOENT},
	} {
		err := WriteFileAtomic(tc.path, []byte("{}"))
		var we *WriteError
		if !errors.As(err, &we) || we.Path != tc.path || !errors.Is(err, tc.errno) {
			t.Errorf("WriteFileAtomic(%s) = %v, want a WriteError naming it with %v", tc.path, err, tc.errno)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
