package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// LockFile is the run directory's one-writer lock; it holds the owner's PID.
const LockFile = "sweep.lock"

// ErrLocked means another live sweep process owns the run directory.
var ErrLocked = errors.New("run directory is in use")

// Lock is a held run-directory lock.
type Lock struct{ path string }

// AcquireLock takes the lock of run. A lock whose PID is no longer alive is
// taken over, and stale reports that it was (with the dead PID).
func AcquireLock(run string) (lock *Lock, stale int, err error) {
	path := filepath.Join(run, LockFile)
	for range 3 {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := fmt.Fprintf(f, "%d\n", os.Getpid())
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			return &Lock{path}, stale, werr
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, 0, fmt.Errorf("lock %s: %w", run, err)
		}
		pid := readPID(path)
		if pid > 0 && alive(pid) {
			return nil, 0, fmt.Errorf("%w: sweep process %d holds %s", ErrLocked, pid, path)
		}
		stale = pid
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, 0, fmt.Errorf("remove stale lock: %w", err)
		}
	}
	return nil, 0, fmt.Errorf("%w: could not take %s", ErrLocked, path)
}

// Release removes the lock.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	return os.Remove(l.path)
}

func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// alive reports whether a process with this PID exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
