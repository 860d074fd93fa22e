package report

import "math"

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

// scoreBalanced sets Score on every cell: normalised RPS minus normalised
// P99 over the spans of these cells (see the package doc).
func scoreBalanced(cells []*Cell) {
	r := rangesOf(cells)
	for _, c := range cells {
		c.Score = r.Balanced(c.RPS.Mean, c.P99.Mean)
	}
}

func unit(x, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}
