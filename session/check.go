package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

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

// Check runs spec's first cell briefly in a throwaway directory (see
// CheckSpec) with the generator check: run opens and runs the session
// as the caller runs any (its progress, its words, its signals), with
// opts and the check's job. It reads the cell's record back.
func Check(ctx context.Context, spec sweep.Spec, opts Options,
	run func(context.Context, sweep.Spec, Options) error) (Checked, error) {
	dir, err := os.MkdirTemp("", "sweep-check-")
	if err != nil {
		return Checked{}, err
	}
	defer os.RemoveAll(dir)
	check, job, err := CheckSpec(spec, dir)
	if err != nil {
		return Checked{}, err
	}
	c := Checked{Duration: check.Duration.Std()}
	opts.Jobs = []sweep.Job{job}
	opts.CheckGenerator = func(g sweep.GeneratorCheck) error { c.Generator = &g; return nil }
	if err := run(ctx, check, opts); err != nil {
		return c, fmt.Errorf("check: %w", err)
	}
	if c.Record, err = results.ReadRecord(filepath.Join(results.CellDir(dir, job.Cell.ID, 1), results.ResultFile)); err != nil {
		return c, fmt.Errorf("check: %w", err)
	}
	return c, nil
}
