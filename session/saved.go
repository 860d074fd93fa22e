package session

import (
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// SavedSpec reads the spec a run directory saved, with the DSNs given now:
// the spec does not keep them, and another host or password is no other
// spec. The run directory is the spec's output.
func SavedSpec(dir, dbDSN, poolerDSN string) (sweep.Spec, error) {
	meta, err := results.ReadMeta(dir)
	if err != nil {
		return sweep.Spec{}, sweep.BadInput("run_dir", "%s is not a run directory: %v", dir, err)
	}
	spec, err := sweep.SpecOf(meta, dbDSN)
	if err != nil {
		return spec, err
	}
	spec.Out, spec.PoolerDSN = dir, poolerDSN
	return spec, nil
}

// Again is the spec and the job that run cell cellID of the run in dir
// once more, as its next repetition (give the job as Options.Jobs). An
// unknown cell is said before anything else about the run (its database,
// its script) is asked for.
func Again(dir, cellID, dbDSN, poolerDSN string) (sweep.Spec, sweep.Job, error) {
	if meta, err := results.ReadMeta(dir); err == nil {
		if _, err := sweep.FindSavedCell(meta, cellID); err != nil {
			return sweep.Spec{}, sweep.Job{}, err
		}
	}
	spec, err := SavedSpec(dir, dbDSN, poolerDSN)
	if err != nil {
		return spec, sweep.Job{}, err
	}
	cell, err := spec.FindCell(cellID)
	if err != nil {
		return spec, sweep.Job{}, err
	}
	return spec, sweep.Job{Cell: cell, Rep: sweep.NextRep(dir, cell.ID)}, nil
}

// FromRun is the spec of the run in dir narrowed to its cell cellID, for
// a search of that cell's safe limit, with the DSNs given now: measure,
// when set, changes what shapes a measurement (durations, driver); the
// run's own search is dropped.
func FromRun(dir, cellID, dbDSN, poolerDSN string, measure func(*sweep.Spec)) (sweep.Spec, sweep.Cell, error) {
	if _, err := results.ReadMeta(dir); err != nil {
		return sweep.Spec{}, sweep.Cell{}, sweep.BadInput("from", "%s is not a run directory: %v", dir, err)
	}
	spec, err := SavedSpec(dir, dbDSN, poolerDSN)
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
