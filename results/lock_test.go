package results

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestLockOneWriterAndStaleTakeover(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, stale, err := AcquireLock(dir)
	if err != nil || stale != 0 {
		t.Fatalf("first lock: %v stale %d", err, stale)
	}
	if _, _, err := AcquireLock(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: err %v, want ErrLocked", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}

	// A lock left by a process that has exited is taken over.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.ProcessState.Pid()
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(strconv.Itoa(dead)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, stale, err = AcquireLock(dir)
	if err != nil || stale != dead {
		t.Fatalf("stale takeover: err %v stale %d, want %d", err, stale, dead)
	}
	_ = l.Release()
}
