package session

import (
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Drifted is the spec and the jobs that measure again, each as its next
// repetition, exactly the cells the run measured while its control cell
// drifted (report.RunDrift; give the jobs as Options.Jobs), with the
// run's DSNs. No jobs when the control did not drift.
func Drifted(saved SavedRun) (sweep.Spec, []sweep.Job, error) {
	spec, err := SavedSpec(saved)
	if err != nil {
		return spec, nil, err
	}
	run, err := results.LoadRun(saved.Dir)
	if err != nil {
		return spec, nil, sweep.BadInput("run_dir", "%s: %v", saved.Dir, err)
	}
	d := report.RunDrift(run)
	if d == nil {
		return spec, nil, nil
	}
	jobs := make([]sweep.Job, 0, len(d.Cells))
	for _, id := range d.Cells {
		cell, err := spec.FindCell(id)
		if err != nil {
			return spec, nil, err
		}
		jobs = append(jobs, sweep.Job{Cell: cell, Rep: sweep.NextRep(saved.Dir, id)})
	}
	return spec, jobs, nil
}
