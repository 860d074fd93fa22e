package report

import (
	"fmt"
	"math"
)

// Ranges are the spans the balanced score of one CPU limit is normalised
// by: RPS and P99 from their lowest to their highest value.
type Ranges struct {
	CPUs  float64 `json:"cpus"`
	RPSLo float64 `json:"rps_lo"`
	RPSHi float64 `json:"rps_hi"`
	P99Lo float64 `json:"p99_lo"`
	P99Hi float64 `json:"p99_hi"`
}

// Balanced is the balanced score of a cell with these figures:
// (RPS − RPSLo)/(RPSHi − RPSLo) − (P99 − P99Lo)/(P99Hi − P99Lo), a span of
// zero counting as no difference. This is the one definition; the report
// and any screening strategy both call it.
func (r Ranges) Balanced(rps, p99 float64) float64 {
	return unit(rps, r.RPSLo, r.RPSHi) - unit(p99, r.P99Lo, r.P99Hi)
}

// rangesOf returns the spans of cells' mean RPS and P99.
func rangesOf(cpu float64, cells []*Cell) Ranges {
	r := Ranges{CPUs: cpu, RPSLo: math.Inf(1), RPSHi: math.Inf(-1), P99Lo: math.Inf(1), P99Hi: math.Inf(-1)}
	for _, c := range cells {
		r.RPSLo, r.RPSHi = min(r.RPSLo, c.RPS.Mean), max(r.RPSHi, c.RPS.Mean)
		r.P99Lo, r.P99Hi = min(r.P99Lo, c.P99.Mean), max(r.P99Hi, c.P99.Mean)
	}
	return r
}

// BalancedRanges returns the spans the report normalised each CPU limit's
// balanced score by, ascending by CPU limit: Options.BalancedRanges where
// given, else the span of that limit's eligible cells. A screening strategy
// keeps its first round's and passes them on, so that dropping cells
// cannot reorder the ones left.
func (r *Report) BalancedRanges() []Ranges {
	out := make([]Ranges, len(r.PerCPU))
	for i, cr := range r.PerCPU {
		out[i] = cr.ranges
	}
	return out
}

// scoreBalanced sets Score on every cell with the fixed ranges of its CPU
// limit when opts has them, else with the span of cells themselves, and
// returns the ranges used.
func scoreBalanced(cpu float64, cells []*Cell, opts Options) Ranges {
	r, ok := opts.rangesFor(cpu)
	if !ok {
		r = rangesOf(cpu, cells)
	}
	for _, c := range cells {
		c.Score = r.Balanced(c.RPS.Mean, c.P99.Mean)
	}
	return r
}

func unit(x, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}

func (o Options) rangesFor(cpu float64) (Ranges, bool) {
	for _, r := range o.BalancedRanges {
		if r.CPUs == cpu {
			return r, true
		}
	}
	return Ranges{}, false
}

func (o Options) validateRanges() error {
	for _, r := range o.BalancedRanges {
		if !(r.RPSHi >= r.RPSLo) || !(r.P99Hi >= r.P99Lo) {
			return fmt.Errorf("%w: balanced ranges of CPU %g run backwards (%+v)", ErrBadInput, r.CPUs, r)
		}
	}
	return nil
}
