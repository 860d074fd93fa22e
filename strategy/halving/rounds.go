package halving

// Successive halving on the interleaved schedule's rounds (sweep.Spec.Rungs;
// the runner's side is sweep/rungs.go). There are no screening phases of
// their own: a rung after round k reads the paired figures of the rounds
// so far of the targets still in play, and drops those the data
// separates from every profile's best at their CPU limit (report.Separated:
// worse than each pick at 95 %, paired round by round, or never
// eligible). A tie is never dropped. The slices a dropped target ran stay
// its figures, so every slice measured counts, and the run measures a
// subset of the slices of the interleaved grid it replaces. The live run
// (CutRounds) and its replay from a grid run's rounds (strategy/replay)
// decide with the same function, CutRound.

import (
	"slices"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// CutRounds is the sweep.Runner.Cut of a halving run on interleaved
// rounds measured into dir: CutRound over the records on disk.
func CutRounds(dir string, opts report.Options) func(sweep.TargetGroup, int) (sweep.Cut, error) {
	return func(g sweep.TargetGroup, k int) (sweep.Cut, error) {
		run, err := results.LoadRun(dir)
		if err != nil {
			return sweep.Cut{}, err
		}
		ids := make([]string, len(g.Cells))
		for i, c := range g.Cells {
			ids[i] = c.ID
		}
		return CutRound(run, g.CPUs, g.Slice, ids, k, opts), nil
	}
}

// CutRound is the decision of the rung after round k for the targets play
// (cell ids) of CPU limit cpus and slice of run: report.Separated over
// their slices of rounds 1 to k alone (so a resume or a replay that holds
// later rounds decides as the run did).
func CutRound(run *results.Run, cpus float64, slice string, play []string, k int, opts report.Options) sweep.Cut {
	drop, why, note := report.Separated(UpToRound(run.Only(slice), play, k), cpus, opts)
	return sweep.Cut{AfterRound: k, Drop: drop, Why: why, Note: note}
}

// UpToRound is run with only the cells ids and, of their interleaved
// slices, those of rounds 1 to k; run is not changed.
func UpToRound(run *results.Run, ids []string, k int) *results.Run {
	out := *run
	out.Cells, out.Missing = nil, nil
	for _, c := range run.Cells {
		if !slices.Contains(ids, c.ID) {
			continue
		}
		c.Reps = slices.DeleteFunc(slices.Clone(c.Reps), func(r results.Rep) bool {
			return r.LoadSlice != nil && r.LoadSlice.Round > k
		})
		out.Cells = append(out.Cells, c)
	}
	return &out
}
