package sweep

import (
	"context"
	"fmt"
	"os"

	"github.com/sweep-tool/sweep/results"
)

// Setup applies cell to the target, waits until it is ready and checks
// what the engine reports, as the first phases of a cell do; Prepare runs
// once. It returns the configuration read back, which MeasureAt compares
// against. It is the building block of searches that load one applied
// cell several times (sweep limit).
func (r *Runner) Setup(ctx context.Context, cell Cell, dir string) (results.Applied, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return results.Applied{}, fmt.Errorf("create target directory: %w", err)
	}
	rec := r.newRecord(cell, 1)
	err := r.setup(ctx, Job{Cell: cell, Rep: 1}, dir, &rec)
	return rec.Applied, err
}

// MeasureAt loads the target as Setup left it with load instead of the
// spec's model: the database reset, the warm-up, the measured phase with
// the monitor watching, and the check that the container is still the one
// in applied. The record (status ok, failed or interrupted) is written to
// dir/result.json, the samples to dir/samples.csv, as for a cell.
func (r *Runner) MeasureAt(ctx context.Context, cell Cell, applied results.Applied, load results.LoadInfo,
	dir string) results.Record {
	rec := r.newRecord(cell, 1)
	rec.Load, rec.Applied = load, applied
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r.finish(ctx, &rec, dir, fmt.Errorf("create level directory: %w", err))
	}
	err := r.measure(ctx, Job{Cell: cell, Rep: 1}, dir, &rec)
	return r.finish(ctx, &rec, dir, err)
}

// DefaultDBService is the database's compose service when none is named
// (--db-service): the service whose CPU the report's pool-sizing rule and
// the safe-limit search's DB CPU row read.
const DefaultDBService = "db"

// FindLimit is a safe-limit search as asked (the search flags of sweep
// limit and run --find-limit). Package strategy/limit gives it meaning
// (limit.ConfigOf); it sits in the spec so a run records it, a resume with
// another search is refused, and resume and rerun search again.
type FindLimit struct {
	// SLO is the objective, e.g. "success>=99%,p99<=500ms".
	SLO string `json:"slo"`
	// Model is vus or rate; empty: the kind of --load.
	Model string `json:"model"`
	// Start is the first level; the ramp multiplies it by Factor while the
	// SLO holds, up to Max, measuring at most MaxSteps levels.
	Start    int     `json:"start_level"`
	Max      int     `json:"max_level"`
	Factor   float64 `json:"factor"`
	MaxSteps int     `json:"max_steps"`
	// Levels, when set, are measured exactly instead of searching.
	Levels []int `json:"levels,omitempty"`
	// DBService is the database's compose service, for its CPU.
	DBService string `json:"db_service"`
}
