package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// prepareDir decides the run directory and id: a new run, or the resume
// of the run already in the spec's directory when its spec is the same.
func (s *Session) prepareDir() error {
	s.runID = results.NewRunID(time.Now())
	s.dir = s.spec.Out
	if s.dir == "" {
		s.dir = filepath.Join("runs", s.runID)
	}
	meta, err := results.ReadMeta(s.dir)
	switch {
	case err == nil:
		if err := s.resumable(meta); err != nil {
			return err
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return sweep.BadInput("out", "%s has an unreadable sweep.json (%v); choose another {out}", s.dir, err)
	}
	var ids []string
	for _, c := range s.spec.Cells() {
		ids = append(ids, c.ID)
	}
	if err := results.CheckRunDir(s.dir, ids, s.spec.Repeat); err != nil {
		return sweep.BadInput("out", "%v; choose another {out}", err)
	}
	if meta.RunID == "" {
		meta = sweep.NewMeta(s.runID, s.opts.Version, s.spec)
	}
	specJSON, _ := json.Marshal(s.spec.Redacted())
	meta.Spec = specJSON
	s.meta = meta
	return nil
}

// resumable accepts an existing run with the same spec (adopting its id),
// moves it aside with Options.ForceNew, or refuses and names the
// differences.
func (s *Session) resumable(meta results.Meta) error {
	diff, err := sweep.DiffSpecs(meta.Spec, meta.SampledDB(), s.spec)
	if err != nil {
		return sweep.BadInput("out", "%s: %v", s.dir, err)
	}
	if len(diff) == 0 {
		s.runID = meta.RunID
		s.notify(Resumed{RunID: meta.RunID, Dir: s.dir})
		return nil
	}
	if !s.opts.ForceNew {
		return sweep.BadInput("out", "%s holds run %s with a different spec: %s; resume with the same settings, "+
			"choose another {out}, or pass {force_new}", s.dir, meta.RunID, strings.Join(diff, "; "))
	}
	aside := s.dir + ".old-" + meta.RunID
	if err := results.MoveAside(s.dir, aside); err != nil {
		return sweep.BadInput("out", "{force_new}: cannot move %s aside: %v", s.dir, err)
	}
	s.notify(MovedAside{Dir: s.dir, To: aside})
	return nil
}

// takeLock takes the run directory's one-writer lock.
func (s *Session) takeLock() error {
	lock, stale, err := results.AcquireLock(s.dir)
	if errors.Is(err, results.ErrLocked) {
		return sweep.BadInput("out", "%v; wait for it or choose another {out}", err)
	}
	if err != nil {
		return sweep.BadInput("out", "%v", err)
	}
	if stale > 0 {
		s.notify(LockTakenOver{Dir: s.dir, PID: stale})
	}
	s.lock = lock
	return nil
}

// recordFacts adds the engine, compose and image facts to sweep.json once
// the images have run; its error is sweep.json's write error.
func (s *Session) recordFacts(ctx context.Context) error {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	facts, err := s.stack.Info(fctx)
	switch {
	case err != nil && s.facts != nil:
		// an interleaved run's targets are gone at its end: what was
		// read while they ran stays
		s.logf("facts: %v; those read before stay", err)
		facts = *s.facts
	case err != nil:
		s.logf("facts: %v", err)
	default:
		s.facts = &facts
	}
	meta := s.meta
	meta.Host.CPUModel, meta.Host.CPUCount = facts.CPUModel, facts.NCPU
	meta.Host.DockerVersion, meta.Host.ComposeVersion = facts.RuntimeVersion, facts.ToolVersion
	meta.Images, meta.ComposeConfigHash = facts.Images, facts.ConfigSHA256
	return meta.Write(s.dir)
}
