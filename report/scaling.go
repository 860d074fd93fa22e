package report

import (
	"math"
	"slices"
)

// Scaling is how the best RPS grows with the CPU limit.
type Scaling struct {
	Points []ScalePoint `json:"points"`
	// Intercept and Slope are the least-squares line best RPS = Intercept
	// + Slope × CPUs; R2 its coefficient of determination. Fitted is
	// false, and they are zero, with fewer than two CPU limits.
	Fitted    bool    `json:"fitted"`
	Intercept float64 `json:"intercept"`
	Slope     float64 `json:"slope_rps_per_cpu"`
	R2        float64 `json:"r2"`
	// NearLinear applies the rule in the package doc.
	NearLinear bool `json:"near_linear"`
}

// ScalePoint is one CPU limit's best cell.
type ScalePoint struct {
	CPUs       float64 `json:"cpus"`
	Cell       string  `json:"cell"`
	BestRPS    float64 `json:"best_rps"`
	RPSPerCore float64 `json:"rps_per_core"`
	// Efficiency is RPS per core relative to the smallest CPU limit's
	// (1 = perfectly linear).
	Efficiency float64 `json:"efficiency"`
}

func scaling(per []*CPUReport) Scaling {
	var s Scaling
	var xs, ys []float64
	for _, cr := range per {
		best := cr.BestRPS.Cell
		pt := ScalePoint{CPUs: cr.CPUs, Cell: best.ID, BestRPS: best.RPS.Mean, RPSPerCore: best.RPS.Mean / cr.CPUs}
		pt.Efficiency = pt.RPSPerCore / firstOr(s.Points, pt).RPSPerCore
		s.Points = append(s.Points, pt)
		xs, ys = append(xs, cr.CPUs), append(ys, best.RPS.Mean)
	}
	if len(xs) < 2 {
		return s
	}
	s.Fitted = true
	s.Intercept, s.Slope, s.R2 = linearFit(xs, ys)
	s.NearLinear = s.R2 >= 0.98 && !slices.ContainsFunc(s.Points, func(p ScalePoint) bool { return p.Efficiency < 0.8 })
	return s
}

func firstOr(pts []ScalePoint, def ScalePoint) ScalePoint {
	if len(pts) == 0 {
		return def
	}
	return pts[0]
}

// PoolEffect measures what the pool multiplier changes once the web
// threads are fixed: each eligible cell is compared with the best cell of
// its matrix row (same CPU limit and web threads).
type PoolEffect struct {
	// ByDBMult is, per pool multiplier, the mean over rows of RPS / row's
	// best RPS and of row's best P99 / P99 (1 = always the best).
	ByDBMult []PoolMean `json:"by_db_mult"`
	// Cells compared, and how many are equivalent to their row's best RPS.
	Cells            int `json:"cells"`
	CellsWithinNoise int `json:"cells_within_noise"`
	// RPSSpread and P99Spread are max − min over ByDBMult.
	RPSSpread float64 `json:"rps_spread"`
	P99Spread float64 `json:"p99_spread"`
	// WithinNoise is true when both spreads are within the noise band.
	WithinNoise bool `json:"within_noise"`
}

// PoolMean is one pool multiplier's mean relative figures.
type PoolMean struct {
	DBMult float64 `json:"db_mult"`
	RPSRel float64 `json:"rps_rel"`
	P99Rel float64 `json:"p99_rel"`
	Rows   int     `json:"rows"`
}

func poolEffect(per []*CPUReport, band float64) PoolEffect {
	var pe PoolEffect
	sums := map[float64]*PoolMean{}
	for _, cr := range per {
		for _, wm := range cr.WebMults {
			row := eligibleRow(cr, wm)
			if len(row) < 2 {
				continue
			}
			bestR := pick(row, func(a, b *Cell) bool { return a.RPS.Mean > b.RPS.Mean }, sameRPS)
			bestP := pick(row, func(a, b *Cell) bool { return a.P99.Mean < b.P99.Mean }, sameP99)
			for _, dm := range cr.DBMults {
				c := cr.At(wm, dm)
				if c == nil || !c.eligible() {
					continue
				}
				pe.Cells++
				if c == bestR.Cell || slices.Contains(bestR.Ties, c) {
					pe.CellsWithinNoise++
				}
				m := sums[dm]
				if m == nil {
					m = &PoolMean{DBMult: dm}
					sums[dm] = m
				}
				m.RPSRel += c.RPS.Mean / bestR.Cell.RPS.Mean
				m.P99Rel += bestP.Cell.P99.Mean / c.P99.Mean
				m.Rows++
			}
		}
	}
	pe.ByDBMult, pe.RPSSpread, pe.P99Spread = poolMeans(sums)
	pe.WithinNoise = len(pe.ByDBMult) > 1 && pe.RPSSpread <= band && pe.P99Spread <= band
	return pe
}

func eligibleRow(cr *CPUReport, webMult float64) []*Cell {
	var row []*Cell
	for _, dm := range cr.DBMults {
		if c := cr.At(webMult, dm); c != nil && c.eligible() && !slices.Contains(row, c) {
			row = append(row, c)
		}
	}
	return row
}

func poolMeans(sums map[float64]*PoolMean) (means []PoolMean, rpsSpread, p99Spread float64) {
	rLo, rHi, pLo, pHi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, m := range sums {
		m.RPSRel /= float64(m.Rows)
		m.P99Rel /= float64(m.Rows)
		rLo, rHi = min(rLo, m.RPSRel), max(rHi, m.RPSRel)
		pLo, pHi = min(pLo, m.P99Rel), max(pHi, m.P99Rel)
		means = append(means, *m)
	}
	slices.SortFunc(means, func(a, b PoolMean) int { return cmpFloat(a.DBMult, b.DBMult) })
	if len(means) == 0 {
		return nil, 0, 0
	}
	return means, rHi - rLo, pHi - pLo
}
