package report

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// uslParams are the three parameters of Gunther's Universal Scalability
// Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)).
type uslParams struct {
	Lambda, Sigma, Kappa float64
}

// at is X(n).
func (p uslParams) at(n float64) float64 { return p.Lambda * n / p.denom(n) }

func (p uslParams) denom(n float64) float64 { return 1 + p.Sigma*(n-1) + p.Kappa*n*(n-1) }

// grad is ∂X/∂(λ, σ, κ) at n.
func (p uslParams) grad(n float64) [3]float64 {
	d := p.denom(n)
	g := -p.Lambda * n / (d * d)
	return [3]float64{n / d, g * (n - 1), g * n * (n - 1)}
}

// uslFace is the set of parameters left free; λ always is. A face with σ
// or κ fixed at 0 is where the constraint σ, κ ≥ 0 binds.
type uslFace struct{ sigma, kappa bool }

// size is the number of free parameters.
func (f uslFace) size() int { return 1 + b2i(f.sigma) + b2i(f.kappa) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// uslFaces are tried in this order; see fitUSL.
var uslFaces = []uslFace{{false, false}, {true, false}, {false, true}, {true, true}}

// parsimony is the share of the total sum of squares an extra free
// parameter must remove to be kept.
const parsimony = 1e-9

// uslSolution is a least-squares fit of the USL to points (n, x).
type uslSolution struct {
	uslParams
	Face uslFace
	// SSE is the sum of squared residuals, SST the total sum of squares
	// about the mean of x.
	SSE, SST float64
}

// errUSLFit means the optimiser found no finite fit.
var errUSLFit = errors.New("usl fit did not converge")

// fitUSL fits the USL to points (ns, xs) by least squares on x, with
// λ > 0 and σ, κ ≥ 0. The linearised form N/X = (1 + σ(N−1) + κN(N−1))/λ,
// a weighted linear regression, gives the start; BFGS from gonum/optimize
// then minimises the squared residuals over ln λ, √σ and √κ, which keeps
// the constraints without bounds. Each face of the constraints (σ = 0,
// κ = 0, both) is fitted too, and a face with more free parameters wins
// only when it removes more than parsimony × SST: so a constraint that
// binds gives an exact 0, not 1e-12. Needs len(ns) ≥ 2.
func fitUSL(ns, xs []float64) (uslSolution, error) {
	scale := slices.Max(xs)
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = x / scale
	}
	start := linearisedUSL(ns, ys)
	var best uslSolution
	found := false
	for _, face := range uslFaces {
		p, sse, err := fitFace(ns, ys, start, face)
		if err != nil {
			continue
		}
		s := uslSolution{uslParams: p, Face: face, SSE: sse}
		if !found || better(s, best, sst(ys)) {
			best, found = s, true
		}
	}
	if !found {
		return uslSolution{}, errUSLFit
	}
	best.Lambda *= scale
	best.SSE *= scale * scale
	best.SST = sst(xs)
	return best, nil
}

// better reports whether a beats b under the parsimony rule.
func better(a, b uslSolution, total float64) bool {
	switch {
	case a.Face.size() > b.Face.size():
		return a.SSE < b.SSE-parsimony*total
	case a.Face.size() < b.Face.size():
		return a.SSE <= b.SSE+parsimony*total
	}
	return a.SSE < b.SSE
}

// sst is the total sum of squares of xs about their mean.
func sst(xs []float64) float64 {
	_, v := stat.MeanVariance(xs, nil)
	return v * float64(len(xs)-1)
}

// linearisedUSL solves N/X = c0 + c1(N−1) + c2·N(N−1) by least squares,
// each row weighted by X²/N so that it approximates a fit on X, and
// returns λ = 1/c0, σ = c1/c0, κ = c2/c0 with σ and κ clipped at 0. With
// fewer than three points, or a singular system, it returns the line
// through the origin.
func linearisedUSL(ns, xs []float64) uslParams {
	line := uslParams{Lambda: xs[0] / ns[0]}
	if len(ns) < 3 {
		return line
	}
	a := mat.NewDense(len(ns), 3, nil)
	b := mat.NewVecDense(len(ns), nil)
	for i, n := range ns {
		w := xs[i] * xs[i] / n
		a.SetRow(i, []float64{w, w * (n - 1), w * n * (n - 1)})
		b.SetVec(i, w*n/xs[i])
	}
	var c mat.VecDense
	if err := c.SolveVec(a, b); err != nil || c.AtVec(0) <= 0 {
		return line
	}
	c0 := c.AtVec(0)
	return uslParams{Lambda: 1 / c0, Sigma: max(0, c.AtVec(1)/c0), Kappa: max(0, c.AtVec(2)/c0)}
}

// fitFace minimises the squared residuals on one face from start.
func fitFace(ns, ys []float64, start uslParams, face uslFace) (uslParams, float64, error) {
	decode := func(v []float64) uslParams {
		p := uslParams{Lambda: math.Exp(v[0])}
		i := 1
		if face.sigma {
			p.Sigma, i = v[i]*v[i], i+1
		}
		if face.kappa {
			p.Kappa = v[i] * v[i]
		}
		return p
	}
	v0 := []float64{math.Log(start.Lambda)}
	if face.sigma {
		v0 = append(v0, math.Sqrt(max(start.Sigma, 1e-4)))
	}
	if face.kappa {
		v0 = append(v0, math.Sqrt(max(start.Kappa, 1e-4)))
	}
	problem := optimize.Problem{
		Func: func(v []float64) float64 { return sumSquares(ns, ys, decode(v)) },
		Grad: func(g, v []float64) { sumSquaresGrad(g, v, ns, ys, decode(v), face) },
	}
	settings := &optimize.Settings{GradientThreshold: 1e-11,
		Converger: &optimize.FunctionConverge{Absolute: 1e-18, Relative: 1e-12, Iterations: 20}}
	res, err := optimize.Minimize(problem, v0, settings, &optimize.BFGS{})
	// A line search that can make no more progress in floating point
	// stops with an error at the best point found: on a face whose
	// optimum lies on its boundary (√κ → 0) that is the normal end.
	stalled := errors.Is(err, optimize.ErrLinesearcherFailure) || errors.Is(err, optimize.ErrNoProgress)
	if (err != nil && !stalled) || res == nil || math.IsNaN(res.F) || math.IsInf(res.F, 0) {
		return uslParams{}, 0, fmt.Errorf("%w: %v", errUSLFit, err)
	}
	return decode(res.X), res.F, nil
}

func sumSquares(ns, ys []float64, p uslParams) float64 {
	s := 0.0
	for i, n := range ns {
		r := p.at(n) - ys[i]
		s += r * r
	}
	return s
}

// sumSquaresGrad is the gradient of sumSquares in the optimiser's
// variables (ln λ, √σ, √κ on the free ones).
func sumSquaresGrad(g, v, ns, ys []float64, p uslParams, face uslFace) {
	clear(g)
	for i, n := range ns {
		r2 := 2 * (p.at(n) - ys[i])
		d := p.grad(n)
		g[0] += r2 * d[0] * p.Lambda
		j := 1
		if face.sigma {
			g[j] += r2 * d[1] * 2 * v[j]
			j++
		}
		if face.kappa {
			g[j] += r2 * d[2] * 2 * v[j]
		}
	}
}
