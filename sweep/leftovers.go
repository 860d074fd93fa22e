package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// ErrRunAlive means a run's lock is held by a live sweep process: its
// stack is in use and must not be removed.
var ErrRunAlive = errors.New("the run is alive")

// ErrRunUnknown means whether a run is alive cannot be told: what it left
// names no run directory (made by an older sweep), or one on another
// host, or its lock cannot be taken for another reason.
var ErrRunUnknown = errors.New("cannot tell whether the run is alive")

// RunLabels identify a run on everything a backend creates for it.
type RunLabels struct {
	ID string // sweep.run
	// Dir is the run directory's absolute path (sweep.dir) and Host the
	// host it is on (sweep.host); both are left out when empty.
	Dir, Host string
}

// Map is l as labels: sweep.run, and sweep.dir and sweep.host where set.
func (l RunLabels) Map() map[string]string {
	m := map[string]string{LabelRun: l.ID}
	if l.Dir != "" {
		m[LabelDir] = l.Dir
	}
	if l.Host != "" {
		m[LabelHost] = l.Host
	}
	return m
}

// Leftover is a run that left objects on a backend (containers, tasks),
// with the labels they carry. Dir and Host are empty unless every object
// agrees.
type Leftover struct {
	RunLabels
	// Containers counts the objects that prove the run held a stack.
	Containers int
}

// LeftoversOf groups the objects whose labels are given by the run their
// sweep.run label names: one Leftover a run, sorted by id, Containers
// counting its objects; Dir and Host stay only where every object of the
// run agrees on them.
func LeftoversOf(labels []map[string]string) []Leftover {
	byID := map[string]*Leftover{}
	for _, l := range labels {
		got := RunLabels{ID: l[LabelRun], Dir: l[LabelDir], Host: l[LabelHost]}
		lo, seen := byID[got.ID]
		if !seen {
			lo = &Leftover{RunLabels: got}
			byID[got.ID] = lo
		}
		if lo.Dir != got.Dir || lo.Host != got.Host {
			lo.Dir, lo.Host = "", ""
		}
		lo.Containers++
	}
	out := make([]Leftover, 0, len(byID))
	for _, l := range byID {
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Leftover) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// LockDead takes the lock of a run's directory, the proof that the run is
// dead, which every backend's clean asks for; a directory that is gone
// gives a nil lock (no sweep runs there, and none can resume it).
func LockDead(l RunLabels) (*results.Lock, error) {
	host, _ := os.Hostname()
	switch {
	case l.Dir == "":
		return nil, fmt.Errorf("%w: its containers carry no %s label", ErrRunUnknown, LabelDir)
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
// (C: the backend's own account), or why the run was left alone (an
// error wrapping ErrRunAlive or ErrRunUnknown).
type CleanOutcome[C any] struct {
	ID      string
	Removed C
	Skipped error
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

// PickRun is the leftover of run id, or a bare one when it has none (its
// networks and volumes may still be there).
func PickRun(runs []Leftover, id string) []Leftover {
	for _, l := range runs {
		if l.ID == id {
			return []Leftover{l}
		}
	}
	return []Leftover{{RunLabels: RunLabels{ID: id}}}
}
