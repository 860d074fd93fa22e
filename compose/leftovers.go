package compose

import (
	"context"
	"fmt"
	"sort"

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
	byID := map[string]*sweep.Leftover{}
	for _, c := range list {
		got := sweep.RunLabels{ID: c.Labels[sweep.LabelRun], Dir: c.Labels[sweep.LabelDir], Host: c.Labels[sweep.LabelHost]}
		l, seen := byID[got.ID]
		if !seen {
			l = &sweep.Leftover{RunLabels: got}
			byID[got.ID] = l
		}
		if l.Dir != got.Dir || l.Host != got.Host {
			l.Dir, l.Host = "", ""
		}
		l.Containers++
	}
	out := make([]sweep.Leftover, 0, len(byID))
	for _, l := range byID {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
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
