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
// either without the other better for the balanced one): the ratio the
// report's sets are read by (sameRPS, sameP99), so a dropped cell is in
// no set. A cell with fewer than two such rounds, a tie, and a
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
		rps, _ := pairedWith(c, cr.BestRPS.Cell, rpsOf)
		p99, _ := pairedWith(c, cr.BestP99.Cell, p99Of)
		bRPS, _ := pairedWith(c, cr.Balanced.Cell, rpsOf)
		bP99, _ := pairedWith(c, cr.Balanced.Cell, p99Of)
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

func rpsOf(r results.Record) float64 { return r.RPS }
func p99Of(r results.Record) float64 { return r.LatencyMS.P99 }

// pairedWith is the ratio of a's figure (of) to b's, paired on the
// rounds both finished ok, and true, when a and b are cells of one group
// read paired by round with at least two such rounds; else false (and a
// ratio with no interval, never below or above 1).
func pairedWith(a, b *Cell, of func(results.Record) float64) (ratio, bool) {
	if a.paired == nil || b.paired == nil || a.paired.group != b.paired.group {
		return noRatio(0), false
	}
	r := pairedRatio(a.paired.by, b.paired.by, of)
	return r, r.n >= 2
}

func noRatio(n int) ratio { return ratio{mean: math.NaN(), lo: math.NaN(), hi: math.NaN(), n: n} }

// pairedRatio pairs a and b (ok slices by round) on the rounds both have.
func pairedRatio(a, b map[int]results.Record, of func(results.Record) float64) ratio {
	var logs []float64
	for k, ra := range a {
		if rb, ok := b[k]; ok {
			logs = append(logs, math.Log(of(ra)/of(rb)))
		}
	}
	if len(logs) < 2 {
		return noRatio(len(logs))
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
