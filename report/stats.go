package report

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/sweep-tool/sweep/confidence"
)

// Estimate is a figure with its uncertainty: the mean of N repetitions and
// an interval [Lo, Hi]. With N ≥ 2 the interval is a 95 % confidence
// interval (for RPS and p99, at least the run's measured noise allows a
// mean of N: Estimate.atLeast); otherwise it is the noise band, and
// Assumed is set when that band was assumed.
type Estimate struct {
	Mean    float64 `json:"mean"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
	N       int     `json:"n"`
	Assumed bool    `json:"assumed,omitempty"`
}

// estimate summarises xs; band is the relative noise band for a single
// value.
func estimate(xs []float64, band float64) Estimate {
	if len(xs) == 0 {
		return Estimate{}
	}
	mean, half := confidence.MeanHalfWidth(xs)
	if len(xs) < 2 {
		half := math.Abs(mean) * band / 2
		return Estimate{Mean: mean, Lo: mean - half, Hi: mean + half, N: 1, Assumed: true}
	}
	return Estimate{Mean: mean, Lo: mean - half, Hi: mean + half, N: len(xs)}
}

// atLeast widens the interval of a mean of two or more repetitions to at
// least the measured band's half over √N on either side: the interval a
// single figure gets (half the band) for a mean of N. Two or three
// figures that happen to lie close give a t interval narrower than the
// host's noise, which the controls and every repeated cell measured
// from more figures; a cell whose own spread is wider keeps its own.
func (e Estimate) atLeast(band float64) Estimate {
	if e.N < 2 {
		return e
	}
	half := math.Abs(e.Mean) * band / 2 / math.Sqrt(float64(e.N))
	e.Lo, e.Hi = min(e.Lo, e.Mean-half), max(e.Hi, e.Mean+half)
	return e
}

// Overlaps reports whether the two intervals share a point: the data
// cannot tell the figures apart.
func (e Estimate) Overlaps(o Estimate) bool { return e.Lo <= o.Hi && o.Lo <= e.Hi }

// Valid reports whether the estimate rests on at least one value.
func (e Estimate) Valid() bool { return e.N > 0 }

// welch returns the two-sided p-value of Welch's t-test for the means of a
// and b, and false when either has fewer than two values.
func welch(a, b []float64) (float64, bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, false
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	na, nb := float64(len(a)), float64(len(b))
	sa, sb := va/na, vb/nb
	if sa+sb == 0 {
		if ma == mb {
			return 1, true
		}
		return 0, true
	}
	t := (ma - mb) / math.Sqrt(sa+sb)
	df := (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(-math.Abs(t)), true
}

// linearFit is the least-squares line y = a + b·x and its R².
func linearFit(xs, ys []float64) (a, b, r2 float64) {
	a, b = stat.LinearRegression(xs, ys, nil, false)
	return a, b, stat.RSquared(xs, ys, nil, a, b)
}
