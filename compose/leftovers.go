package compose

import (
	"context"
	"fmt"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// Leftovers lists, by run id, the runs whose containers (any state) carry
// the sweep.run label.
func Leftovers(ctx context.Context, eng engine.Engine) ([]sweep.Leftover, error) {
	list, err := eng.ContainerList(ctx, container.ListOptions{All: true, Filters: engine.LabelFilter(sweep.LabelRun)})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	labels := make([]map[string]string, len(list))
	for i, c := range list {
		labels[i] = c.Labels
	}
	return sweep.LeftoversOf(labels), nil
}

// CleanDead removes what run l left on the engine (see Cleanup) when the
// run is provably dead: its containers name a run directory on this host,
// and that directory is gone or its lock can be taken. The lock is held
// while removing, so the run cannot be resumed meanwhile. A live run gives
// an error wrapping sweep.ErrRunAlive, one that cannot be told sweep.ErrRunUnknown,
// and nothing is removed; force removes without the proof. A run without
// containers needs none: the engine keeps networks and volumes in use.
func CleanDead(ctx context.Context, eng engine.Engine, l sweep.Leftover, force bool) (Cleaned, error) {
	if !force && l.Containers > 0 {
		lock, err := sweep.LockDead(l.RunLabels)
		if err != nil {
			return Cleaned{}, fmt.Errorf("run %s: %w", l.ID, err)
		}
		defer lock.Release()
	}
	return Cleanup(ctx, eng, l.ID)
}

// CleanRuns removes the leftovers of run id, or of every run with
// leftovers when id is empty, that are provably dead, or all of them with
// force (see CleanDead and sweep.CleanEach). A named run without containers is
// cleaned of its networks and volumes.
func CleanRuns(ctx context.Context, eng engine.Engine, id string, force bool) ([]sweep.CleanOutcome[Cleaned], error) {
	runs, err := Leftovers(ctx, eng)
	if err != nil {
		return nil, err
	}
	if id != "" {
		runs = sweep.PickRun(runs, id)
	}
	return sweep.CleanEach(runs, id != "", func(l sweep.Leftover) (Cleaned, error) { return CleanDead(ctx, eng, l, force) })
}
