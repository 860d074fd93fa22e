package report

import "slices"

// CPUReport is the analysis of the cells of one CPU limit.
type CPUReport struct {
	CPUs float64
	// Cells are this limit's cells in plan order.
	Cells []*Cell
	// WebMults and DBMults are the matrix axes, ascending.
	WebMults []float64
	DBMults  []float64
	BestRPS  Pick
	BestP99  Pick
	Balanced Pick
	// BestLimit is the highest safe limit; zero when no cell searched one.
	BestLimit Pick
	// Frontier is the Pareto frontier of RPS against P99, by P99
	// ascending: no eligible cell has both more RPS and lower P99.
	Frontier []*Cell
	// Baseline is the cell of the user's current settings at this limit
	// (run with a baseline); it stays out of Cells, the matrices' grid
	// and every pick, and the gains measure the picks against it.
	Baseline *Cell

	grid map[[2]float64]*Cell
	// norm is the spans the balanced score is normalised by.
	norm Ranges
}

// Pick is a winner and the cells the data cannot separate from it.
type Pick struct {
	Cell *Cell
	Ties []*Cell
}

// At returns the cell at a multiplier pair, or nil.
func (cr *CPUReport) At(webMult, dbMult float64) *Cell { return cr.grid[[2]float64{webMult, dbMult}] }

// analyseCPU returns nil when no cell of the limit is eligible. stored,
// when not nil, is the spans the balanced score is normalised by (see
// normalisation).
func analyseCPU(cpu float64, cells []*Cell, stored *Ranges) *CPUReport {
	cr := &CPUReport{CPUs: cpu, grid: map[[2]float64]*Cell{}}
	var ok []*Cell
	for _, c := range cells {
		if c.Baseline {
			cr.Baseline = c
			continue
		}
		cr.Cells = append(cr.Cells, c)
		for _, p := range c.pairs() {
			cr.grid[p] = c
			cr.WebMults = appendNew(cr.WebMults, p[0])
			cr.DBMults = appendNew(cr.DBMults, p[1])
		}
		if c.eligible() {
			ok = append(ok, c)
		}
	}
	slices.Sort(cr.WebMults)
	slices.Sort(cr.DBMults)
	if len(ok) == 0 {
		return nil
	}
	cr.scoreBalanced(ok, stored)
	cr.BestRPS = pick(ok, func(a, b *Cell) bool { return a.RPS.Mean > b.RPS.Mean }, sameRPS)
	cr.BestP99 = pick(ok, func(a, b *Cell) bool { return a.P99.Mean < b.P99.Mean }, sameP99)
	cr.Balanced = pick(ok, func(a, b *Cell) bool { return a.Score > b.Score }, sameBoth)
	cr.BestLimit = bestLimit(ok)
	cr.Frontier = frontier(ok)
	return cr
}

func appendNew(xs []float64, x float64) []float64 {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// sameRPS, sameP99 and sameBoth report whether the data cannot separate
// two cells by RPS, by p99, or by either. Two cells of one interleaved
// group read paired by round are compared by the ratio of their slices
// round by round (pairedRatio: its 95 % interval holds 1), the statistic
// a halving rung drops by (Separated), so a cell a rung dropped is in no
// set; other cells, and two paired cells with fewer than two rounds both
// finished ok, by their intervals overlapping.
func sameRPS(a, b *Cell) bool {
	if r, ok := pairedWith(a, b, rpsOf); ok {
		return !r.below() && !r.above()
	}
	return a.RPS.Overlaps(b.RPS)
}

func sameP99(a, b *Cell) bool {
	if r, ok := pairedWith(a, b, p99Of); ok {
		return !r.below() && !r.above()
	}
	return a.P99.Overlaps(b.P99)
}

func sameBoth(a, b *Cell) bool { return sameRPS(a, b) && sameP99(a, b) }

// pick returns the best cell by better (first in plan order on equal
// figures) and the cells equivalent to it.
func pick(cells []*Cell, better, same func(a, b *Cell) bool) Pick {
	best := cells[0]
	for _, c := range cells[1:] {
		if better(c, best) {
			best = c
		}
	}
	p := Pick{Cell: best}
	for _, c := range cells {
		if c != best && same(c, best) {
			p.Ties = append(p.Ties, c)
		}
	}
	return p
}

// frontier returns the Pareto-optimal cells by P99 ascending.
func frontier(cells []*Cell) []*Cell {
	sorted := slices.Clone(cells)
	slices.SortStableFunc(sorted, func(a, b *Cell) int {
		if a.P99.Mean != b.P99.Mean {
			return cmpFloat(a.P99.Mean, b.P99.Mean)
		}
		return cmpFloat(b.RPS.Mean, a.RPS.Mean)
	})
	var out []*Cell
	for _, c := range sorted {
		if len(out) == 0 || c.RPS.Mean > out[len(out)-1].RPS.Mean {
			out = append(out, c)
		}
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
