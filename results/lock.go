package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// LockFile is the run directory's one-writer lock. Its owner holds an
// exclusive flock(2) on it for as long as it runs, and writes its PID into
// it for messages. The kernel drops the flock when the owner exits, however
// it exits, so a live lock always means a live owner: a PID alone could
// name an unrelated process that reused it.
const LockFile = "sweep.lock"

// ErrLocked means another live sweep process owns the run directory.
var ErrLocked = errors.New("run directory is in use")

// Lock is a held run-directory lock.
type Lock struct {
	path string
	f    *os.File
}

// AcquireLock takes the lock of run without waiting. A lock file left by
// a process that is gone (its flock is free) is taken over, and stale
// reports that process's PID. A lock held by a live process gives an error
// wrapping ErrLocked that names its PID; a run directory that does not
// exist gives one wrapping fs.ErrNotExist.
func AcquireLock(run string) (lock *Lock, stale int, err error) {
	path := filepath.Join(run, LockFile)
	for range 3 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, 0, fmt.Errorf("lock %s: %w", run, err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			pid := readPID(f)
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, 0, fmt.Errorf("%w: sweep process %d holds %s", ErrLocked, pid, path)
			}
			return nil, 0, fmt.Errorf("lock %s: %w", path, err)
		}
		if !samePath(f, path) { // its last owner removed it meanwhile
			f.Close()
			continue
		}
		stale = readPID(f)
		if err := writePID(f); err != nil {
			f.Close()
			return nil, 0, writeError(path, err)
		}
		return &Lock{path: path, f: f}, stale, nil
	}
	return nil, 0, fmt.Errorf("%w: could not take %s", ErrLocked, path)
}

// Release removes the lock file, then drops the flock.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	err := os.Remove(l.path)
	if errors.Is(err, os.ErrNotExist) { // moved aside with its run
		err = nil
	}
	return errors.Join(err, l.f.Close())
}

// samePath reports whether the open file f is still the one at path.
func samePath(f *os.File, path string) bool {
	held, err := f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Stat(path)
	return err == nil && os.SameFile(held, now)
}

// readPID reads the PID an earlier owner wrote into f (0: none).
func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// writePID replaces f's content with this process's PID.
func writePID(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return err
}
