// Package repeat is dynamic repetition (run --repeat auto): once every
// cell has its first measurements, the cells that decide a
// recommendation are measured again, one more repetition per round,
// until the report can separate them or they reach the cap.
//
// The cells that decide are, for each profile (latency-first, balanced,
// throughput-first) and each slice of the grid, the cells of the
// profile's calibrated set (report.Profile.Set): the recommended
// multiplier pair, every pair the report calls equivalent to it (a tie:
// their figures overlap at every CPU limit) and every pair a re-run on
// this host would pick often enough to join the set (Likely). The noise
// rules are the report's own (report, built on confidence): one
// measurement carries the run's noise band (measured from the control,
// or assumed), two or more the 95 % t interval of their mean (at least
// the measured noise over √N). So the
// repeats stop exactly when the report, built from the same records, no
// longer calls the finalist and its runners-up equivalent or likely, and
// the ties that remain at the cap are the ones the report lists.
//
// A pick whose set is the pick alone and which was measured once is
// measured once more: the best of many noisy figures is the one most
// likely to have been lucky (the winner's curse), and a pick that holds
// on a second measurement is not repeated further.
//
// A cell measured once whose figure says that more CPU served its pair
// worse than less did, beyond the noise (its RPS below, or its p99
// above, the same pair's at the next lower CPU limit, their intervals
// apart), is measured once more, with that neighbour: one unlucky figure
// (a stall, a neighbour's burst: this host's noise has tails no band
// covers) would otherwise rule its pair out of every set for good, since
// only the sets are repeated. Two measurements either confirm it or show
// it as a wide interval the report then judges.
//
// Each round is a function of the records on disk, so a resumed run
// recomputes where it stands and goes on.
package repeat

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// ErrBadCap is returned when the cap allows no repetition beyond the
// first.
var ErrBadCap = errors.New("the repetition cap must be at least 2")

// Options are the cap and the noise rules.
type Options struct {
	// Max is the most repetitions any cell gets (at least 2).
	Max int
	// Report holds the noise band and the error bound the report uses.
	Report report.Options
	// Fidelity, when set, is how every repetition measures (a halving
	// run's finals'); nil: the spec's.
	Fidelity *sweep.Fidelity
}

// Tie is a profile's pick that the data cannot separate from other pairs.
type Tie struct {
	// Slice is the grid's slice (extra axes), "" without extra axes.
	Slice   string
	Profile string
	// Pair is the recommended [web_mult, db_mult]; With the pairs of its
	// set besides it: those the report calls equivalent to it, then
	// those a re-run would likely pick.
	Pair [2]float64
	With [][2]float64
}

// Step is where a run stands: the repetitions to run next (none when
// every tie is separated or at the cap) and the ties as of now.
type Step struct {
	Jobs []sweep.Job
	Ties []Tie
	// Why says, per cell id of Jobs, why it is measured again: in a set
	// not yet separated, a lone pick to confirm, or a figure more CPU did
	// worse on (of several, the first that asks the most repetitions).
	Why map[string]string
}

// confirmed is how many repetitions a pick with no tie needs: its first
// and one that confirms it.
const confirmed = 2

// Next reads the run in dir and returns the next round: one more
// repetition of every cell of a tie that has fewer than opts.Max
// finished repetitions, and of every cell of a lone pick that has fewer
// than two, in plan order. cells is the run's plan.
func Next(dir string, cells []sweep.Cell, opts Options) (Step, error) {
	if opts.Max < 2 {
		return Step{}, fmt.Errorf("%w (got %d)", ErrBadCap, opts.Max)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		return Step{}, err
	}
	step := Step{Why: map[string]string{}}
	want := map[string]int{}      // cell id: the repetitions it needs
	reason := map[string]string{} // and why
	// need notes that cell id needs n repetitions and why: the first
	// reason of those that ask the most.
	need := func(id string, n int, why string) {
		if n > want[id] {
			want[id], reason[id] = n, why
		}
	}
	for _, slice := range run.Slices() {
		part := run.Only(slice)
		rep, err := report.Build(part, opts.Report)
		if err != nil {
			return Step{}, fmt.Errorf("report of %s: %w", dir, err)
		}
		for _, p := range rep.Profiles {
			set := p.Set()
			if len(set) == 0 {
				continue
			}
			tie := Tie{Slice: slice, Profile: p.Key, Pair: set[0], With: set[1:]}
			n, why := confirmed, fmt.Sprintf("%s's pick, no other pair in its set: confirming it", p.Key)
			if len(tie.With) > 0 {
				step.Ties = append(step.Ties, tie)
				n, why = opts.Max, fmt.Sprintf("%s's set of %d pairs, not yet separated", p.Key, len(set))
			}
			for _, rc := range part.Cells {
				if tie.has(rc.Mults) {
					need(rc.ID, n, why)
				}
			}
		}
		for id, why := range inverted(rep) {
			need(id, confirmed, why)
		}
	}
	done := finished(run)
	for _, c := range cells {
		if n := done[c.ID]; n < want[c.ID] {
			step.Jobs = append(step.Jobs, sweep.Job{Cell: c, Rep: n + 1, Fidelity: opts.Fidelity})
			step.Why[c.ID] = reason[c.ID]
		}
	}
	return step, nil
}

// inverted returns, with why, the cells measured fewer than confirmed
// times of every two neighbouring CPU limits of one pair where the higher
// limit's RPS is below the lower's, or its p99 above, with their
// intervals apart (the report's noise rules): more CPU doing worse than
// less by more than the noise says the figure of one of them is off.
func inverted(rep *report.Report) map[string]string {
	byPair := map[[2]float64][]*report.Cell{}
	for _, c := range rep.Cells {
		if c.Baseline || c.Status != results.StatusOK {
			continue
		}
		for _, m := range c.Mults {
			byPair[m] = append(byPair[m], c)
		}
	}
	ids := map[string]string{}
	pairs := slices.SortedFunc(maps.Keys(byPair), func(a, b [2]float64) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	for _, pair := range pairs {
		cs := byPair[pair]
		slices.SortFunc(cs, func(a, b *report.Cell) int { return cmp.Compare(a.CPUs, b.CPUs) })
		for i := 1; i < len(cs); i++ {
			lo, hi := cs[i-1], cs[i]
			var worse string
			switch {
			case hi.RPS.Mean < lo.RPS.Mean && !hi.RPS.Overlaps(lo.RPS):
				worse = "RPS"
			case hi.P99.Mean > lo.P99.Mean && !hi.P99.Overlaps(lo.P99):
				worse = "p99"
			default:
				continue
			}
			why := fmt.Sprintf("its pair's %s at CPU %g worse than at CPU %g, beyond the noise", worse, hi.CPUs, lo.CPUs)
			for _, c := range []*report.Cell{lo, hi} {
				if _, ok := ids[c.ID]; !ok && c.RPS.N < confirmed {
					ids[c.ID] = why
				}
			}
		}
	}
	return ids
}

// has reports whether any of mults is the tie's pair or one of its set.
func (t Tie) has(mults [][2]float64) bool {
	for _, m := range mults {
		if m == t.Pair || slices.Contains(t.With, m) {
			return true
		}
	}
	return false
}

// finished is each cell's highest finished repetition number.
func finished(run *results.Run) map[string]int {
	out := map[string]int{}
	for _, rc := range run.Cells {
		for _, r := range rc.Reps {
			out[rc.ID] = max(out[rc.ID], r.Repetition)
		}
	}
	return out
}

// Run runs rounds of repetitions with r (its Dir and Spec are the run's)
// until Next has none left, and returns the ties that remained with the
// records of every round. A round's error (interrupted, too many
// failures, a run file not written) ends it with what ran so far.
func Run(ctx context.Context, r *sweep.Runner, opts Options) ([]Tie, []results.Record, error) {
	var recs []results.Record
	for {
		step, err := Next(r.Dir, r.Spec.Cells(), opts)
		if err != nil || len(step.Jobs) == 0 {
			return step.Ties, recs, err
		}
		if r.Log != nil {
			for _, j := range step.Jobs {
				fmt.Fprintf(r.Log, "%s repeat: %s r%d: %s\n", time.Now().Format("15:04:05"), j.Cell.ID, j.Rep, step.Why[j.Cell.ID])
			}
		}
		r.Jobs = step.Jobs
		sum, err := r.Run(ctx)
		recs = append(recs, sum.Records...)
		if err != nil {
			return step.Ties, recs, err
		}
	}
}
