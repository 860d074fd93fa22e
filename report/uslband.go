package report

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/sweep-tool/sweep/confidence"
)

// Where a USL fit's prediction intervals come from (see the package doc).
const (
	// IntervalRepeats: some fitted point rests on repeated measurements;
	// every point's own interval (its confidence interval, or the assumed
	// noise band when it was measured once) is carried through the fit.
	IntervalRepeats = "repeats"
	// IntervalResiduals: no repeats, and more points than free
	// parameters; the residual variance estimates the noise, and the
	// interval is never narrower than the points' assumed noise band
	// carried through the fit.
	IntervalResiduals = "residuals"
	// IntervalNoiseBand: no repeats and no spare point (the curve passes
	// through every point, so residuals say nothing); the assumed noise
	// band of each point is carried through the fit.
	IntervalNoiseBand = "noise band"
)

// errNoBand means the fit's parameters cannot be told apart by its
// points, so no interval can be given.
var errNoBand = errors.New("usl parameters are not identifiable from these points")

// z95 is the two-sided 95 % quantile of the normal distribution.
const z95 = 1.959963984540054

// uslBand gives prediction intervals for a fitted USL by the delta
// method: Var X(N) = g(N)ᵀ C g(N), with g the gradient of X in the free
// parameters and C their covariance from the Jacobian J of the fitted
// points. With known point variances V (repeats, noise band) C is the
// least-squares sandwich (JᵀJ)⁻¹ JᵀVJ (JᵀJ)⁻¹; from residuals it is
// s²(JᵀJ)⁻¹ with s² = SSE/(n − p) and Student's t quantile, never
// narrower than the sandwich of the points' own intervals.
type uslBand struct {
	sol   uslSolution
	cov   *mat.Dense
	quant float64
	// floor is the covariance the points' own intervals give (the
	// sandwich); from residuals an interval is never narrower than it,
	// since a point measured once is not known better than its noise
	// band however well the curve happens to pass through it.
	floor *mat.Dense
	// Method is one of the Interval* constants.
	Method string
}

// newUSLBand computes the parameter covariance of sol fitted to points
// whose own estimates are est.
func newUSLBand(sol uslSolution, ns []float64, est []Estimate) (uslBand, error) {
	b := uslBand{sol: sol}
	p := sol.Face.size()
	j := mat.NewDense(len(ns), p, nil)
	for i, n := range ns {
		j.SetRow(i, b.free(n))
	}
	a, err := invertNormal(j)
	if err != nil {
		return b, err
	}
	b.floor = sandwich(a, j, est)
	repeated := false
	for _, e := range est {
		repeated = repeated || e.N >= 2
	}
	df := len(ns) - p
	switch {
	case repeated:
		b.Method, b.quant, b.cov = IntervalRepeats, z95, b.floor
	case df > 0:
		b.Method, b.quant = IntervalResiduals, confidence.TQuantile(df)
		b.cov = mat.NewDense(p, p, nil)
		b.cov.Scale(sol.SSE/float64(df), a)
	default:
		b.Method, b.quant, b.cov = IntervalNoiseBand, z95, b.floor
	}
	return b, nil
}

// sandwich is (JᵀJ)⁻¹ JᵀVJ (JᵀJ)⁻¹ with a = (JᵀJ)⁻¹ and V the variances
// of the points, each 95 % half-width of est taken as 1.96 standard errors.
func sandwich(a, j *mat.Dense, est []Estimate) *mat.Dense {
	v := mat.NewDiagDense(len(est), nil)
	for i, e := range est {
		se := (e.Hi - e.Lo) / 2 / z95
		v.SetDiag(i, se*se)
	}
	var jvj, left mat.Dense
	jvj.Product(j.T(), v, j)
	left.Mul(a, &jvj)
	_, p := a.Dims()
	out := mat.NewDense(p, p, nil)
	out.Mul(&left, a)
	return out
}

// free is the gradient of X(n) in the free parameters of the face.
func (b uslBand) free(n float64) []float64 {
	g := b.sol.grad(n)
	out := []float64{g[0]}
	if b.sol.Face.sigma {
		out = append(out, g[1])
	}
	if b.sol.Face.kappa {
		out = append(out, g[2])
	}
	return out
}

// at returns the 95 % interval of X(n), its low end held at 0.
func (b uslBand) at(n float64) (lo, hi float64) {
	g := mat.NewVecDense(b.sol.Face.size(), b.free(n))
	half := b.quant * math.Sqrt(max(0, mat.Inner(g, b.cov, g)))
	half = max(half, z95*math.Sqrt(max(0, mat.Inner(g, b.floor, g))))
	x := b.sol.at(n)
	return max(0, x-half), x + half
}

// invertNormal returns (JᵀJ)⁻¹, scaling J's columns to unit length first
// so that λ (hundreds) and κ (thousandths) do not ruin the conditioning.
func invertNormal(j *mat.Dense) (*mat.Dense, error) {
	_, p := j.Dims()
	scale := make([]float64, p)
	var js mat.Dense
	js.CloneFrom(j)
	for c := range p {
		scale[c] = mat.Norm(js.ColView(c), 2)
		if scale[c] == 0 {
			return nil, errNoBand
		}
		col := mat.Col(nil, c, &js)
		for i := range col {
			col[i] /= scale[c]
		}
		js.SetCol(c, col)
	}
	var normal mat.SymDense
	normal.SymOuterK(1, js.T())
	var chol mat.Cholesky
	if !chol.Factorize(&normal) {
		return nil, errNoBand
	}
	var inv mat.SymDense
	if err := chol.InverseTo(&inv); err != nil {
		return nil, errNoBand
	}
	out := mat.NewDense(p, p, nil)
	for r := range p {
		for c := range p {
			out.Set(r, c, inv.At(r, c)/(scale[r]*scale[c]))
		}
	}
	return out, nil
}
