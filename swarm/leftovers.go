package swarm

import (
	"context"
	"fmt"
	"slices"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/sweep"
)

// Leftovers lists, by run id, the runs whose services on the swarm carry
// the sweep.run label (Containers counts their services), for `sweep
// clean` on a manager.
func Leftovers(ctx context.Context, mgr Manager) ([]sweep.Leftover, error) {
	list, err := mgr.ServiceList(ctx, swarm.ServiceListOptions{Filters: filters.NewArgs(filters.Arg("label", sweep.LabelRun))})
	if err != nil {
		return nil, fmt.Errorf("list services: %w", err)
	}
	labels := make([]map[string]string, len(list))
	for i, svc := range list {
		labels[i] = svc.Spec.Labels
	}
	return sweep.LeftoversOf(labels), nil
}

// CleanDead removes run l's services and networks from the swarm (see
// Cleanup) when the run is provably dead, by the same rule as
// compose.CleanDead (its directory is gone, or its lock can be taken);
// force removes without the proof.
func CleanDead(ctx context.Context, mgr Manager, l sweep.Leftover, force bool) (Cleaned, error) {
	if !force {
		lock, err := sweep.LockDead(l.RunLabels)
		if err != nil {
			return Cleaned{}, fmt.Errorf("run %s: %w", l.ID, err)
		}
		if lock != nil {
			defer lock.Release()
		}
	}
	return Cleanup(ctx, mgr, l.ID)
}

// CleanRuns removes, when mgr is a swarm manager, the services and
// networks of run id (of every run when empty) that are provably dead, or
// all of them with force, by sweep clean's rule (sweep.CleanEach).
func CleanRuns(ctx context.Context, mgr Manager, id string, force bool) ([]sweep.CleanOutcome[Cleaned], error) {
	if !IsManager(ctx, mgr) {
		return nil, nil
	}
	runs, err := Leftovers(ctx, mgr)
	if err != nil {
		return nil, err
	}
	if id != "" {
		runs = slices.DeleteFunc(runs, func(l sweep.Leftover) bool { return l.ID != id })
	}
	return sweep.CleanEach(runs, id != "", func(l sweep.Leftover) (Cleaned, error) { return CleanDead(ctx, mgr, l, force) })
}
