package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// newRunID is a sortable id of letters, digits and dashes: the start time
// and a random suffix, so runs started in the same second (scripted, in
// parallel) never share a compose project.
func newRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// prepareDir decides the run directory and id: a new run, or the resume
// of the run already in --out when its spec is the same.
func (e *runEnv) prepareDir(spec sweep.Spec) (string, results.Meta, error) {
	e.runID = newRunID(time.Now())
	dir := spec.Out
	if dir == "" {
		dir = filepath.Join("runs", e.runID)
	}
	meta, err := results.ReadMeta(dir)
	switch {
	case err == nil:
		if err := e.resumable(dir, meta, spec); err != nil {
			return "", meta, err
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return "", meta, sweep.BadInput("out", "%s has an unreadable sweep.json (%v); choose another --out", dir, err)
	}
	var ids []string
	for _, c := range spec.Cells() {
		ids = append(ids, c.ID)
	}
	if err := results.CheckRunDir(dir, ids, spec.Repeat); err != nil {
		return "", meta, sweep.BadInput("out", "%v; choose another --out", err)
	}
	if meta.RunID == "" {
		meta = newMeta(e.runID, spec)
	}
	specJSON, _ := json.Marshal(spec.Redacted())
	meta.Spec = specJSON
	return dir, meta, nil
}

// resumable accepts an existing run with the same spec (adopting its id),
// moves it aside with --force-new, or refuses and names the differences.
func (e *runEnv) resumable(dir string, meta results.Meta, spec sweep.Spec) error {
	diff, err := sweep.DiffSpecs(meta.Spec, meta.SampledDB(), spec)
	if err != nil {
		return sweep.BadInput("out", "%s: %v", dir, err)
	}
	if len(diff) == 0 {
		e.runID = meta.RunID
		fmt.Fprintf(e.stderr, "sweep: resuming run %s in %s\n", meta.RunID, dir)
		return nil
	}
	if !e.opts.forceNew {
		return sweep.BadInput("out", "%s holds run %s with a different spec: %s; resume with the same settings, "+
			"choose another --out, or pass --force-new", dir, meta.RunID, strings.Join(diff, "; "))
	}
	aside := dir + ".old-" + meta.RunID
	if err := moveAside(dir, aside); err != nil {
		return sweep.BadInput("out", "--force-new: cannot move %s aside: %v", dir, err)
	}
	fmt.Fprintf(e.stderr, "sweep: --force-new: moved the earlier run to %s\n", aside)
	return nil
}

// moveAside renames an earlier run under its lock, so a sweep still
// running in it is refused instead of losing its directory.
func moveAside(dir, aside string) error {
	lock, _, err := results.AcquireLock(dir)
	if err != nil {
		return err
	}
	if err := os.Rename(dir, aside); err != nil {
		_ = lock.Release()
		return err
	}
	// the lock file moved with the run: remove it there, then drop the
	// flock (Release finds nothing left at dir)
	return errors.Join(os.Remove(filepath.Join(aside, results.LockFile)), lock.Release())
}

func newMeta(runID string, spec sweep.Spec) results.Meta {
	m := results.Meta{SchemaVersion: results.SchemaVersion, RunID: runID, CreatedAt: time.Now().UTC(),
		ToolVersion: version, DBSampled: spec.DBDSN != ""}
	for _, c := range spec.Cells() {
		m.Cells = append(m.Cells, c.Info())
	}
	return m
}

// lock takes the run directory's one-writer lock.
func (e *runEnv) lock(dir string) (*results.Lock, error) {
	lock, stale, err := results.AcquireLock(dir)
	if errors.Is(err, results.ErrLocked) {
		return nil, sweep.BadInput("out", "%v; wait for it or choose another --out", err)
	}
	if err != nil {
		return nil, sweep.BadInput("out", "%v", err)
	}
	if stale > 0 {
		fmt.Fprintf(e.stderr, "sweep: took over the lock of %s from process %d, which is gone\n", dir, stale)
	}
	return lock, nil
}

// appendFile is a log file opened on the first write, so that checks
// which fail before the run starts leave no run directory behind.
type appendFile struct {
	path string
	f    *os.File
	err  error
}

func (a *appendFile) Write(p []byte) (int, error) {
	if a.f == nil && a.err == nil {
		a.f, a.err = os.OpenFile(a.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	}
	if a.err != nil {
		return len(p), nil // the log is best effort: a run file that matters fails on its own
	}
	return a.f.Write(p)
}

// Close closes the file if it was opened.
func (a *appendFile) Close() error {
	if a.f == nil {
		return nil
	}
	return a.f.Close()
}
