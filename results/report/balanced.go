package report

import (
	"math"

	"github.com/sweep-tool/sweep/results"
)

// Ranges are the spans the balanced score of one CPU limit is normalised
// by: RPS and P99 from their lowest to their highest value.
type Ranges struct {
	RPSLo, RPSHi float64
	P99Lo, P99Hi float64
}

// Balanced is the balanced score of a cell with these figures:
// (RPS − RPSLo)/(RPSHi − RPSLo) − (P99 − P99Lo)/(P99Hi − P99Lo), a span of
// zero counting as no difference. This is the one definition; a screening
// strategy ranks through the report and so through it too.
func (r Ranges) Balanced(rps, p99 float64) float64 {
	return unit(rps, r.RPSLo, r.RPSHi) - unit(p99, r.P99Lo, r.P99Hi)
}

// rangesOf returns the spans of cells' mean RPS and P99.
func rangesOf(cells []*Cell) Ranges {
	r := Ranges{RPSLo: math.Inf(1), RPSHi: math.Inf(-1), P99Lo: math.Inf(1), P99Hi: math.Inf(-1)}
	for _, c := range cells {
		r.RPSLo, r.RPSHi = min(r.RPSLo, c.RPS.Mean), max(r.RPSHi, c.RPS.Mean)
		r.P99Lo, r.P99Hi = min(r.P99Lo, c.P99.Mean), max(r.P99Hi, c.P99.Mean)
	}
	return r
}

// NormRound is the screening round whose spans normalise the balanced
// score of every later round of a halving run and of its report: the
// first, the one round that measures every cell, at one fidelity.
const NormRound = 1

// normalisation returns, per CPU limit, the spans a run's balanced score
// is normalised by when they are not those of the cells compared: for a
// halving run, the spans of the first screening round's eligible records
// (the same eligibility as the report's: ok, errors within the bound).
// Nil for a grid, whose report normalises by the cells it compares.
//
// Why: dropping cells must not change a score. Normalised by the cells
// compared, the finalists' spans lose each limit's lowest RPS and
// highest P99 (the cells screened out first), which reweighs RPS against
// P99 and reorders the finalists (TestBalancedScoreOfASubset). Stored
// from the round that measured every cell, the spans are the same for
// every later round and for the report, whatever was dropped; since a
// profile's ranking only depends on each limit's two spans (the lower
// ends add the same constant to every cell's score), a level that a short
// round measures higher or lower than a full one does not move it either.
func normalisation(run *results.Run, opts Options) map[float64]Ranges {
	if run.Strategy != StrategyHalving {
		return nil
	}
	byCPU := map[float64][]*Cell{}
	for _, rc := range run.Cells {
		if rc.Baseline {
			continue
		}
		for _, s := range rc.Screens {
			if s.Round != NormRound {
				continue
			}
			c := summarise(results.RunCell{CellInfo: rc.CellInfo, Reps: []results.Rep{{Record: s.Record}}}, run.Service, opts)
			if c.Ineligible == "" {
				byCPU[c.CPUs] = append(byCPU[c.CPUs], c)
			}
		}
	}
	out := make(map[float64]Ranges, len(byCPU))
	for cpu, cells := range byCPU {
		out[cpu] = rangesOf(cells)
	}
	return out
}

// scoreBalanced sets the limit's spans and Score on every cell: normalised
// RPS minus normalised P99 over the spans stored (a halving run's first
// round) or, without them, over the spans of these cells (see the package
// doc).
func (cr *CPUReport) scoreBalanced(cells []*Cell, stored *Ranges) {
	cr.norm = rangesOf(cells)
	if stored != nil {
		cr.norm = *stored
	}
	for _, c := range cells {
		c.Score = cr.norm.Balanced(c.RPS.Mean, c.P99.Mean)
	}
}

func unit(x, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}
