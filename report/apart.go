package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
)

// PicksApart reports whether run's picks at CPU limit cpus are apart:
// every profile's best cell there (throughput, latency, balanced) has no
// cell the data cannot separate from it. An interleaved run's automatic
// rounds stop once they are (sweep.Runner.EnoughRounds). false when the
// run has no analysis at cpus yet.
func PicksApart(run *results.Run, cpus float64, opts Options) bool {
	rep, err := BuildPicks(run, opts)
	if err != nil {
		return false
	}
	for _, cr := range rep.PerCPU {
		if cr.CPUs != cpus {
			continue
		}
		for _, p := range []Pick{cr.BestRPS, cr.BestP99, cr.Balanced} {
			if p.Cell == nil || len(p.Ties) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// Separated is the rule of a halving rung on interleaved rounds
// (sweep.Runner.Cut): the cells of run at CPU limit cpus that the rounds
// separate from every profile's pick there (the report's best by RPS, by
// p99 and balanced), or that can never win (ineligible: failed slices,
// errors above the bound); for each, why. Separated from a pick means
// worse, paired by round: the 95 % t interval across the rounds both ran
// ok of the log ratio of the cell's figure to the pick's excludes 0 on
// the worse side (RPS for the throughput pick, p99 for the latency pick,
// either without the other better for the balanced one). A pairwise
// ratio cancels what the host did to the round as the report's ratio to
// the round's median does, without a noisy middle target moving every
// cell's figure. A cell with fewer than two such rounds, a tie, and a
// baseline cell (the gains need it) are never separated. note says, when
// none is, why: no analysis yet, or every cell within a pick's interval.
func Separated(run *results.Run, cpus float64, opts Options) (drop []string, why map[string]string, note string) {
	rep, err := BuildPicks(run, opts)
	if err != nil {
		return nil, nil, "no analysis of the rounds: " + err.Error()
	}
	i := slices.IndexFunc(rep.PerCPU, func(cr *CPUReport) bool { return cr.CPUs == cpus })
	if i < 0 {
		return nil, nil, "no cell is eligible yet"
	}
	cr := rep.PerCPU[i]
	if cr.BestRPS.Cell == nil || cr.BestP99.Cell == nil || cr.Balanced.Cell == nil {
		return nil, nil, "a profile has no pick yet"
	}
	rounds := map[string]map[int]results.Record{} // ok slices by cell and round
	for _, rc := range run.Cells {
		for _, rep := range rc.Reps {
			if rep.LoadSlice != nil && rep.Status == results.StatusOK && rep.RPS > 0 && rep.LatencyMS.P99 > 0 {
				if rounds[rc.ID] == nil {
					rounds[rc.ID] = map[int]results.Record{}
				}
				rounds[rc.ID][rep.LoadSlice.Round] = rep.Record
			}
		}
	}
	why = map[string]string{}
	picks := []string{cr.BestRPS.Cell.ID, cr.BestP99.Cell.ID, cr.Balanced.Cell.ID}
	for _, c := range cr.Cells {
		if slices.Contains(picks, c.ID) {
			continue
		}
		if c.Ineligible != "" {
			drop, why[c.ID] = append(drop, c.ID), "cannot win: "+c.Ineligible
			continue
		}
		rps := pairedRatio(rounds[c.ID], rounds[cr.BestRPS.Cell.ID], func(r results.Record) float64 { return r.RPS })
		p99 := pairedRatio(rounds[c.ID], rounds[cr.BestP99.Cell.ID], func(r results.Record) float64 { return r.LatencyMS.P99 })
		bRPS := pairedRatio(rounds[c.ID], rounds[cr.Balanced.Cell.ID], func(r results.Record) float64 { return r.RPS })
		bP99 := pairedRatio(rounds[c.ID], rounds[cr.Balanced.Cell.ID], func(r results.Record) float64 { return r.LatencyMS.P99 })
		balanced := bRPS.below() && !bP99.below() || bP99.above() && !bRPS.above()
		if !rps.below() || !p99.above() || !balanced {
			continue
		}
		drop = append(drop, c.ID)
		why[c.ID] = fmt.Sprintf("over %d rounds paired with each pick, at 95 %%: RPS %s of %s's, p99 %s of %s's",
			rps.n, rps, cr.BestRPS.Cell.ID, p99, cr.BestP99.Cell.ID)
	}
	if len(drop) == 0 {
		return nil, nil, fmt.Sprintf("none of the %d cells is worse than every profile's pick at 95 %%, paired by round", len(cr.Cells))
	}
	return drop, why, ""
}

// ratio is the geometric mean over rounds of one cell's figure over
// another's and its 95 % t interval (from the log ratios).
type ratio struct {
	mean, lo, hi float64
	n            int
}

// pairedRatio pairs a and b (ok slices by round) on the rounds both have.
func pairedRatio(a, b map[int]results.Record, of func(results.Record) float64) ratio {
	var logs []float64
	for k, ra := range a {
		if rb, ok := b[k]; ok {
			logs = append(logs, math.Log(of(ra)/of(rb)))
		}
	}
	if len(logs) < 2 {
		return ratio{mean: math.NaN(), lo: math.NaN(), hi: math.NaN(), n: len(logs)}
	}
	mean, half := confidence.MeanHalfWidth(logs)
	return ratio{mean: math.Exp(mean), lo: math.Exp(mean - half), hi: math.Exp(mean + half), n: len(logs)}
}

// below and above report whether the whole interval is under or over 1
// (false without one).
func (r ratio) below() bool { return r.hi < 1 }
func (r ratio) above() bool { return r.lo > 1 }

func (r ratio) String() string {
	return fmt.Sprintf("%.3g× [%.3g, %.3g]", r.mean, r.lo, r.hi)
}
