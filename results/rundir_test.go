package results

import (
	"cmp"
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

// TestMakeDirBesideARemover: run --parallel's lanes share a run
// directory, and a lane that aborts a job removes its folder and then the
// parents that are left empty (sweep's discard). Another lane creating a
// job folder in the same cell at that moment must still get it: MkdirAll
// alone fails with ENOENT when a parent it found goes before its own
// mkdir (a CI run lost lane 2's control to lane 1's failed start so).
func TestMakeDirBesideARemover(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	cell := filepath.Join(root, "cells", "cpu_1__web_1__db_2")
	stop := make(chan struct{})
	removed := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				removed <- n
				return
			default:
			}
			// as discard does: the job's folder, then empty parents
			_ = os.Mkdir(filepath.Join(root, "cells"), 0o755)
			_ = os.Mkdir(cell, 0o755)
			_ = os.Mkdir(filepath.Join(cell, "control1"), 0o755)
			dir := filepath.Join(cell, "control1")
			for range 3 {
				if os.Remove(dir) != nil {
					break
				}
				dir = filepath.Dir(dir)
			}
			n++
		}
	}()
	var failed int
	var first error
	for range 2000 {
		dir := filepath.Join(cell, "control2")
		if err := MakeDir(dir); err != nil {
			failed++
			first = cmp.Or(first, err)
			continue
		}
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	n := <-removed
	if failed > 0 {
		t.Errorf("MakeDir failed %d of 2000 times beside %d removals, first: %v", failed, n, first)
	}
}
