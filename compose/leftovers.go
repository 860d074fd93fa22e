package compose

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// ErrRunAlive means a run's lock is held by a live sweep process: its
// stack is in use and must not be removed.
var ErrRunAlive = errors.New("the run is alive")

// ErrRunUnknown means whether a run is alive cannot be told: its
// containers name no run directory (made by an older sweep), or one on
// another host, or its lock cannot be taken for another reason.
var ErrRunUnknown = errors.New("cannot tell whether the run is alive")

// Leftover is a run that has containers on the engine, with the labels
// they carry. Dir and Host are empty unless every container agrees.
type Leftover struct {
	RunLabels
	Containers int
}

// Leftovers lists, by run id, the runs whose containers (any state) carry
// the sweep.run label.
func Leftovers(ctx context.Context, eng Engine) ([]Leftover, error) {
	list, err := eng.ContainerList(ctx, container.ListOptions{All: true, Filters: labelFilter(sweep.LabelRun)})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	byID := map[string]*Leftover{}
	for _, c := range list {
		got := RunLabels{ID: c.Labels[sweep.LabelRun], Dir: c.Labels[sweep.LabelDir], Host: c.Labels[sweep.LabelHost]}
		l, seen := byID[got.ID]
		if !seen {
			l = &Leftover{RunLabels: got}
			byID[got.ID] = l
		}
		if l.Dir != got.Dir || l.Host != got.Host {
			l.Dir, l.Host = "", ""
		}
		l.Containers++
	}
	out := make([]Leftover, 0, len(byID))
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
// an error wrapping ErrRunAlive, one that cannot be told ErrRunUnknown,
// and nothing is removed; force removes without the proof. A run without
// containers needs none: the engine keeps networks and volumes in use.
func CleanDead(ctx context.Context, eng Engine, l Leftover, force bool) (Cleaned, error) {
	if !force && l.Containers > 0 {
		lock, err := LockDead(l.RunLabels)
		if err != nil {
			return Cleaned{}, fmt.Errorf("run %s: %w", l.ID, err)
		}
		defer lock.Release()
	}
	return Cleanup(ctx, eng, l.ID)
}

// LockDead takes the lock of a run's directory, the proof that the run is
// dead (CleanDead here, and the swarm backend's); a directory that is gone
// gives a nil lock (no sweep runs there, and none can resume it).
func LockDead(l RunLabels) (*results.Lock, error) {
	host, _ := os.Hostname()
	switch {
	case l.Dir == "":
		return nil, fmt.Errorf("%w: its containers carry no %s label", ErrRunUnknown, sweep.LabelDir)
	case l.Host != host:
		return nil, fmt.Errorf("%w: its directory %s is on host %q, this is %q", ErrRunUnknown, l.Dir, l.Host, host)
	}
	lock, _, err := results.AcquireLock(l.Dir)
	switch {
	case errors.Is(err, results.ErrLocked):
		return nil, fmt.Errorf("%w: %w", ErrRunAlive, err)
	case errors.Is(err, fs.ErrNotExist):
		if _, serr := os.Stat(l.Dir); errors.Is(serr, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: %w", ErrRunUnknown, err)
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrRunUnknown, err)
	}
	return lock, nil
}

// CleanOutcome is one run's part in a clean: what its backend removed
// (C: Cleaned here, the swarm's own), or why the run was left alone (an
// error wrapping ErrRunAlive or ErrRunUnknown).
type CleanOutcome[C any] struct {
	ID      string
	Removed C
	Skipped error
}

// CleanRuns removes the leftovers of run id, or of every run with
// leftovers when id is empty, that are provably dead, or all of them with
// force (see CleanDead and CleanEach). A named run without containers is
// cleaned of its networks and volumes.
func CleanRuns(ctx context.Context, eng Engine, id string, force bool) ([]CleanOutcome[Cleaned], error) {
	runs, err := Leftovers(ctx, eng)
	if err != nil {
		return nil, err
	}
	if id != "" {
		runs = pick(runs, id)
	}
	return CleanEach(runs, id != "", func(l Leftover) (Cleaned, error) { return CleanDead(ctx, eng, l, force) })
}

// CleanEach cleans each of runs with clean by the rule of sweep clean: a
// run that is alive or whose state cannot be told is skipped, with why,
// unless it was named, which is an error; any other error stops the
// clean, with its run's id. It returns what it did up to an error.
func CleanEach[C any](runs []Leftover, named bool, clean func(Leftover) (C, error)) ([]CleanOutcome[C], error) {
	var outs []CleanOutcome[C]
	for _, l := range runs {
		got, err := clean(l)
		switch {
		case (errors.Is(err, ErrRunAlive) || errors.Is(err, ErrRunUnknown)) && named:
			return outs, err
		case errors.Is(err, ErrRunAlive) || errors.Is(err, ErrRunUnknown):
			outs = append(outs, CleanOutcome[C]{ID: l.ID, Skipped: err})
		case err != nil:
			return outs, fmt.Errorf("clean run %s: %w", l.ID, err)
		default:
			outs = append(outs, CleanOutcome[C]{ID: l.ID, Removed: got})
		}
	}
	return outs, nil
}

// pick is the leftover of run id, or a bare one when it has no container
// (its networks and volumes may still be there).
func pick(runs []Leftover, id string) []Leftover {
	for _, l := range runs {
		if l.ID == id {
			return []Leftover{l}
		}
	}
	return []Leftover{{RunLabels: RunLabels{ID: id}}}
}
