package session

import (
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// SavedRun is a run directory taken up again (resume, rerun, limit
// --from) with the DSNs given now: the spec does not keep them, and
// another host or password is no other spec.
type SavedRun struct {
	// Dir is the run directory; it is the spec's output.
	Dir string
	// DBDSN is the database's DSN now (Spec.DBDSN): required when the
	// run sampled a database, refused when it did not.
	DBDSN string
	// PoolerDSN is PgBouncer's DSN now (Spec.PoolerDSN), or empty.
	PoolerDSN string
}

// SavedSpec reads the spec run's directory saved, with run's DSNs.
func SavedSpec(run SavedRun) (sweep.Spec, error) {
	meta, err := results.ReadMeta(run.Dir)
	if err != nil {
		return sweep.Spec{}, sweep.BadInput("run_dir", "%s is not a run directory: %v", run.Dir, err)
	}
	spec, err := sweep.SpecOf(meta, run.DBDSN)
	if err != nil {
		return spec, err
	}
	spec.Out, spec.PoolerDSN = run.Dir, run.PoolerDSN
	return spec, nil
}

// Again is the spec and the job that run cell cellID of run once more,
// as its next repetition (give the job as Options.Jobs). An unknown cell
// is said before anything else about the run (its database, its script)
// is asked for.
func Again(run SavedRun, cellID string) (sweep.Spec, sweep.Job, error) {
	if meta, err := results.ReadMeta(run.Dir); err == nil {
		if _, err := sweep.FindSavedCell(meta, cellID); err != nil {
			return sweep.Spec{}, sweep.Job{}, err
		}
	}
	spec, err := SavedSpec(run)
	if err != nil {
		return spec, sweep.Job{}, err
	}
	cell, err := spec.FindCell(cellID)
	if err != nil {
		return spec, sweep.Job{}, err
	}
	if spec.Interleaved() { // one cell measured alone has no round to be read against
		return spec, sweep.Job{}, sweep.BadInput("schedule", "the run is %s: its cells are measured round by round beside each other, "+
			"not one alone; run it again with more {rounds} instead", sweep.ScheduleInterleaved)
	}
	return spec, sweep.Job{Cell: cell, Rep: sweep.NextRep(run.Dir, cell.ID)}, nil
}

// FromRun is the spec of run narrowed to its cell cellID, for a search of
// that cell's safe limit: measure, when set, changes what shapes a
// measurement (durations, driver); the run's own search is dropped.
func FromRun(run SavedRun, cellID string, measure func(*sweep.Spec)) (sweep.Spec, sweep.Cell, error) {
	if _, err := results.ReadMeta(run.Dir); err != nil {
		return sweep.Spec{}, sweep.Cell{}, sweep.BadInput("from", "%s is not a run directory: %v", run.Dir, err)
	}
	spec, err := SavedSpec(run)
	if err != nil {
		return spec, sweep.Cell{}, err
	}
	cell, err := spec.FindCell(cellID)
	if err != nil {
		return spec, cell, err
	}
	if cell.Baseline {
		return spec, cell, sweep.BadInput("cell", "%s is the baseline cell, which has no multipliers; give a grid cell", cell.ID)
	}
	if measure != nil {
		measure(&spec)
	}
	spec.FindLimit = nil
	spec.CPUs, spec.WebMult, spec.DBMult = []float64{cell.CPUs}, []float64{cell.Mults[0][0]}, []float64{cell.Mults[0][1]}
	return spec, cell, nil
}
