package results

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"time"
)

// NewRunID is a sortable id of letters, digits and dashes: the start time
// and a random suffix, so runs started in the same second (scripted, in
// parallel) never share a compose project.
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// MoveAside renames the run directory dir to aside under its lock, so a
// sweep still running in it is refused instead of losing its directory.
func MoveAside(dir, aside string) error {
	lock, _, err := AcquireLock(dir)
	if err != nil {
		return err
	}
	if err := os.Rename(dir, aside); err != nil {
		_ = lock.Release()
		return err
	}
	// the lock file moved with the run: remove it there, then drop the
	// flock (Release finds nothing left at dir)
	return errors.Join(os.Remove(filepath.Join(aside, LockFile)), lock.Release())
}
