package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// CheckSpec is spec cut down to a check of the stack: its first cell
// once, for a few seconds, into dir, with no search and no retries.
func CheckSpec(spec sweep.Spec, dir string) (sweep.Spec, sweep.Job, error) {
	first := spec.Cells()
	if len(first) == 0 {
		return spec, sweep.Job{}, sweep.BadInput("cpus", "the grid is empty")
	}
	check := spec
	check.Out, check.Repeat, check.Retries, check.MaxFailures = dir, 1, 0, 0
	check.FindLimit = nil                   // one short load tells whether the stack works
	check.Parallel = min(check.Parallel, 1) // one lane, on the first lane's node
	check.Warmup = sweep.Duration(min(spec.Warmup.Std(), 2*time.Second))
	check.Duration = sweep.Duration(min(spec.Duration.Std(), 5*time.Second))
	return check, sweep.Job{Cell: first[0], Rep: 1}, nil
}

// Checked is what a check found: the first cell's record, how long its
// measured phase was, and the generator check's comparison.
type Checked struct {
	Record    results.Record
	Duration  time.Duration
	Generator *sweep.GeneratorCheck
}

// A Check is spec's first cell run briefly (see CheckSpec) in a
// throwaway directory, with the generator check. It is a session like
// any other: the caller opens and runs Spec with Options(opts) as it
// runs every session (its progress, its words, its signals), then reads
// Result and removes the directory with Remove.
type Check struct {
	spec sweep.Spec
	job  sweep.Job
	gen  *sweep.GeneratorCheck
}

// NewCheck makes the check of spec in a new temporary directory.
func NewCheck(spec sweep.Spec) (*Check, error) {
	dir, err := os.MkdirTemp("", "sweep-check-")
	if err != nil {
		return nil, err
	}
	check, job, err := CheckSpec(spec, dir)
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	return &Check{spec: check, job: job}, nil
}

// Spec is the spec of the check's session.
func (c *Check) Spec() sweep.Spec { return c.spec }

// Options is opts for the check's session: its one job, and the
// generator check's comparison kept for Result.
func (c *Check) Options(opts Options) Options {
	opts.Jobs = []sweep.Job{c.job}
	opts.CheckGenerator = func(g sweep.GeneratorCheck) error { c.gen = &g; return nil }
	return opts
}

// Result reads back what the check's session measured.
func (c *Check) Result() (Checked, error) {
	got := Checked{Duration: c.spec.Duration.Std(), Generator: c.gen}
	var err error
	if got.Record, err = results.ReadRecord(filepath.Join(results.CellDir(c.spec.Out, c.job.Cell.ID, 1), results.ResultFile)); err != nil {
		return got, fmt.Errorf("check: %w", err)
	}
	return got, nil
}

// Remove removes the check's directory.
func (c *Check) Remove() error { return os.RemoveAll(c.spec.Out) }

// TraceScenario runs one iteration of every scenario of spec's scenario
// file against the stack already running at spec's URL (builtin.Trace),
// a request at a time: `sweep check --scenario`. It needs only the file
// and the URL, checked first: a file outside the subset, a k6 driver or
// script beside it, or a URL that is not http(s) is bad input, and so is
// a URL where nothing answers. A step that failed is in the result
// (Traced.Err), not in the error; Ctrl-C is sweep.ErrInterrupted.
func TraceScenario(ctx context.Context, spec sweep.Spec) (builtin.Traced, error) {
	if spec.Scenario == nil {
		return nil, sweep.BadInput("scenario", "names the scenario file to try")
	}
	if err := errors.Join(spec.ValidateScenario(), spec.ValidateURL()); err != nil {
		return nil, err
	}
	opts, err := builtinOptions(spec)
	if err != nil {
		return nil, err
	}
	steps, err := builtin.Trace(ctx, opts, spec.URL)
	switch {
	case ctx.Err() != nil:
		return steps, fmt.Errorf("%w: %w", sweep.ErrInterrupted, ctx.Err())
	case err != nil:
		return steps, sweep.BadInput("url", "%v: no HTTP answer; is the stack up at {url}?", err)
	}
	return steps, nil
}
