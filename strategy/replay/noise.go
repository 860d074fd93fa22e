package replay

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// Noise is the relative noise (coefficient of variation) a screening
// round's figures are perturbed with, drawn afresh for every cell in
// every round.
type Noise struct {
	Round  int     `json:"round"`
	RPS    float64 `json:"rps_cv"`
	P99    float64 `json:"p99_cv"`
	Source string  `json:"source"`
}

// givenNoise applies one CV to RPS and p99 in every screening round.
func givenNoise(cv float64, plan halving.Plan) []Noise {
	source := "given"
	if cv == 0 {
		source = "none: the grid's own figures"
	}
	out := make([]Noise, len(plan.Rounds)-1)
	for i := range out {
		out[i] = Noise{Round: i + 1, RPS: cv, P99: cv, Source: source}
	}
	return out
}

// measuredNoise estimates each screening round's noise from the run: the
// spread between repetitions of a cell (drift between measurements, at
// full length) combined with the spread between windows of the round's
// length within one measured phase (the noise of measuring briefly), as
// the root of the sum of squares, each pooled over cells weighted by
// their RPS (pooled). ok is false when the run has neither.
func measuredNoise(cells []*cell, plan halving.Plan) ([]Noise, bool) {
	repRPS, repP99, nRep := pooled(cells, func(c *cell) ([]float64, []float64) { return c.repRPS, c.repP99 })
	out := make([]Noise, len(plan.Rounds)-1)
	found := nRep > 0
	for i := range out {
		size := int(plan.Rounds[i].Duration.Seconds())
		winRPS, winP99, nWin := pooled(cells, func(c *cell) ([]float64, []float64) {
			if len(c.series) < 3*size {
				return nil, nil // fewer than three windows say little
			}
			return steady.Batches(c.series, size)
		})
		found = found || nWin > 0
		out[i] = Noise{Round: i + 1, RPS: math.Hypot(repRPS, winRPS), P99: math.Hypot(repP99, winP99),
			Source: fmt.Sprintf("%d cells' repetitions, %d cells' %d s windows", nRep, nWin, size)}
	}
	return out, found
}

// pooled returns the cells' coefficients of variation of two figures
// pooled as confidence.PooledNoise does (weighted by each cell's RPS, as
// halving.Band weighs a round's screens), and how many cells had one of
// the first figure.
func pooled(cells []*cell, figures func(*cell) ([]float64, []float64)) (a, b float64, n int) {
	var as, bs, aw, bw []float64
	for _, c := range cells {
		xs, ys := figures(c)
		if cv, ok := confidence.CV(xs); ok {
			as, aw = append(as, cv), append(aw, c.rps)
		}
		if cv, ok := confidence.CV(ys); ok {
			bs, bw = append(bs, cv), append(bw, c.rps)
		}
	}
	a, _ = confidence.PooledNoise(as, aw)
	b, _ = confidence.PooledNoise(bs, bw)
	return a, b, len(as)
}

// perturb returns x × (1 + cv·z), z standard normal, never below 1 % of x
// (a figure cannot turn negative however large the noise).
func perturb(r *rand.Rand, x, cv float64) float64 {
	if cv == 0 {
		return x
	}
	return x * max(0.01, 1+cv*r.NormFloat64())
}
