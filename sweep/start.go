package sweep

// The first start of a stack. Before its first cell the runner brings up
// the services the target needs (Stack.StartDeps), so a depends_on without
// a condition does not meet a database that is still starting; runs
// Prepare once per run (e.g. to check the DSNs against the database that
// is now up); and, once the target is ready, sends one request to the URL.
// A failure of Prepare or of that request is bad input found before any
// cell: the run stops and nothing is recorded for the cell it interrupted.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sweep-tool/sweep/results"
)

// startDeps brings up the services the target needs on the stack's first
// start and runs Prepare once; a Prepare error (other than a
// cancellation) aborts the run.
func (r *Runner) startDeps(ctx context.Context, job Job, stack Stack, cfg TargetConfig, rec *results.Record) error {
	if r.up[stack] {
		return nil
	}
	ready := r.Spec.ReadyTimeout.Std()
	err := r.timed(job, rec, "deps", func() error {
		return Bounded(ctx, r.call("start dependencies", ready, OfReadyTimeout),
			func(ctx context.Context) error { return stack.StartDeps(ctx, cfg, ready) })
	})
	if err != nil {
		return fmt.Errorf("dependencies: %w", err)
	}
	if r.up == nil {
		r.up = map[Stack]bool{}
	}
	r.up[stack] = true
	if r.prepared || (r.Prepare == nil && r.Limits == nil) {
		return nil
	}
	err = r.timed(job, rec, "prepare", func() error {
		if r.Prepare != nil {
			// a database of the stack is waited for up to the ready timeout
			if err := Bounded(ctx, r.call("prepare", ready, OfReadyTimeout), r.Prepare); err != nil {
				return err
			}
		}
		return r.guardLimits(ctx)
	})
	if err != nil {
		if ctx.Err() == nil {
			r.abort = err
		}
		return err
	}
	r.prepared = true
	return nil
}

// probeOnce sends one request to the URL on the stack's first start, once
// the target is ready: no HTTP answer aborts the run as bad input naming
// the url, with the *ProbeError as its cause; a probe that outlasts the
// call timeout (a platform's proxy that does not answer) aborts it with
// that *CallTimeoutError.
func (r *Runner) probeOnce(ctx context.Context, job Job, stack Stack, rec *results.Record) error {
	if r.probed[stack] {
		return nil
	}
	probe := Probe
	if p, ok := stack.(URLProber); ok {
		probe = p.ProbeURL
	}
	err := r.timed(job, rec, "probe", func() error {
		return Bounded(ctx, r.call("URL probe", 0, OfCallTimeout), func(ctx context.Context) error { return probe(ctx, r.Spec.URL) })
	})
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return err
	case errors.Is(err, ErrCallTimeout): // the platform did not answer: no word on the URL
		r.abort = err
		return err
	default:
		r.abort = &BadInputError{Field: "url", Msg: err.Error() + "; the target is ready, so the URL does not lead to it", Err: err}
		return err
	}
	if r.probed == nil {
		r.probed = map[Stack]bool{}
	}
	r.probed[stack] = true
	return nil
}

// stackDown forgets that stack was started, after it was taken down.
func (r *Runner) stackDown(stack Stack) {
	delete(r.up, stack)
	delete(r.probed, stack)
}

// discard removes what an aborted job left in its directory (the override
// it applied), then the directory and its parents up to the run's cells
// folder, each only when it is empty: nothing is recorded for the job.
func discard(dir string) {
	_ = os.Remove(filepath.Join(dir, results.OverrideFile))
	for range 3 { // r<N>, the cell's folder, cells
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}
