// Package confidence holds the 95 % confidence arithmetic that the report
// (intervals of repeated cells) and the steady-state rule (batch means of
// one measured phase, trends of a warm-up) both rest on, so that the two
// never disagree on what "within noise" means. It is plain arithmetic over
// float slices: no I/O, no knowledge of cells or runs.
package confidence

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TQuantile is the two-sided 95 % quantile of Student's t with df degrees
// of freedom (12.71 at df = 1, 2.26 at df = 9, 1.96 as df grows).
func TQuantile(df int) float64 { return tQuantileAt(df, Level) }

// Level is the false-alarm rate of this package's tests when the caller
// names none: 5 %, two-sided.
const Level = 0.05

// tQuantileAt is the two-sided quantile of Student's t with df degrees of
// freedom at false-alarm rate alpha.
func tQuantileAt(df int, alpha float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - alpha/2)
}

// MeanHalfWidth returns the mean of xs and the half-width of its 95 %
// confidence interval, t(n−1) × sd / √n. The half-width is NaN for fewer
// than two values, where no interval exists.
func MeanHalfWidth(xs []float64) (mean, half float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	if len(xs) < 2 {
		return xs[0], math.NaN()
	}
	mean, sd := stat.MeanStdDev(xs, nil)
	return mean, TQuantile(len(xs)-1) * sd / math.Sqrt(float64(len(xs)))
}

// Trend fits ys against their index (0, 1, 2, …) by least squares and
// reports the slope per step and whether it differs from zero at the 95 %
// level (two-sided t-test on the slope, n − 2 degrees of freedom). Fewer
// than three points never show a significant trend; points on an exact
// line show one whenever the slope is not zero.
func Trend(ys []float64) (slope float64, significant bool) { return TrendAt(ys, Level) }

// TrendAt is Trend at false-alarm rate level (two-sided) instead of 5 %:
// for a caller that runs several tests on one question and must keep
// their joint false alarms at 5 % (Bonferroni: 5 % / the tests).
func TrendAt(ys []float64, level float64) (slope float64, significant bool) {
	n := len(ys)
	if n < 3 {
		return 0, false
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i)
	}
	alpha, beta := stat.LinearRegression(xs, ys, nil, false)
	xMean := float64(n-1) / 2
	var sse, sxx float64
	for i, y := range ys {
		r := y - (alpha + beta*xs[i])
		sse += r * r
		sxx += (xs[i] - xMean) * (xs[i] - xMean)
	}
	if math.Abs(beta) <= 1e-12*math.Abs(stat.Mean(ys, nil)) {
		return beta, false // flat up to rounding
	}
	se := math.Sqrt(sse / float64(n-2) / sxx)
	return beta, se == 0 || math.Abs(beta/se) > tQuantileAt(n-2, level)
}

// CV is the coefficient of variation of xs, the sample standard deviation
// over the mean, as a fraction; false for fewer than two values or a mean
// that is not above zero, where it means nothing.
func CV(xs []float64) (float64, bool) {
	if len(xs) < 2 {
		return 0, false
	}
	m, sd := stat.MeanStdDev(xs, nil)
	if m <= 0 {
		return 0, false
	}
	return sd / m, true
}

// PooledNoise pools relative noises (coefficients of variation or
// relative standard errors), one a measurement, into one: the root of
// their squares' mean weighted by each measurement's RPS; false when no
// weight is above zero. Weighted by RPS, a starved measurement (a request
// or none a second) counts for what it served: its relative noise says how
// few requests it counted, not how far apart the measurements that
// matter lie (make bench-strategy's pool-of-one cells at about 1 RPS
// measure 0.3–1.5 in 2 s windows beside 0.07–0.3 for the rest).
func PooledNoise(noise, rps []float64) (float64, bool) {
	var sum, weight float64
	for i, n := range noise {
		if w := rps[i]; w > 0 {
			sum, weight = sum+w*n*n, weight+w
		}
	}
	if weight == 0 {
		return 0, false
	}
	return math.Sqrt(sum / weight), true
}

// Shift looks for a step in ys: of every split into a first and a second
// stretch of at least two points each, the one whose means differ most
// by Student's two-sample t (the scatter pooled over both stretches, as
// it is one scatter when nothing moved). It returns the index where the
// second stretch starts, the difference of the means (second − first),
// the pooled standard deviation, and whether the step is significant at
// the 95 % level over all the splits tried (Bonferroni: each split at
// 5 % / the number of splits, n − 2 degrees of freedom). Fewer than four
// points never show a step; stretches without scatter show one whenever
// their means differ. It is the trend test's companion for a level that
// moved once (a neighbour that came), which a straight line through the
// points fits too loosely to call significant.
func Shift(ys []float64) (at int, diff, sd float64, significant bool) { return ShiftAt(ys, Level) }

// ShiftAt is Shift with level, not 5 %, the false-alarm rate over all the
// splits (see TrendAt).
func ShiftAt(ys []float64, level float64) (at int, diff, sd float64, significant bool) {
	n := len(ys)
	if n < 4 {
		return 0, 0, 0, false
	}
	bestT := -1.0
	for k := 2; k <= n-2; k++ {
		a, b := ys[:k], ys[k:]
		ma, va := stat.MeanVariance(a, nil)
		mb, vb := stat.MeanVariance(b, nil)
		pooled := math.Sqrt((va*float64(len(a)-1) + vb*float64(len(b)-1)) / float64(n-2))
		se := pooled * math.Sqrt(1/float64(len(a))+1/float64(len(b)))
		t := 0.0
		switch {
		case se > 0:
			t = math.Abs(mb-ma) / se
		case mb != ma:
			t = math.Inf(1)
		}
		if t > bestT {
			bestT, at, diff, sd = t, k, mb-ma, pooled
		}
	}
	if bestT <= 0 {
		return 0, 0, 0, false
	}
	crit := tQuantileAt(n-2, level/float64(n-3))
	return at, diff, sd, bestT > crit
}

// LengthNoise is the relative noise (a coefficient of variation) of a
// figure measured over a window of some length: cv(L)² = White²·(1 s/L) +
// Floor². White is the noise that averages out (the spread of 1 s
// windows if the seconds were independent), Floor the part that does
// not, whatever the length (drift, a level that wanders).
type LengthNoise struct {
	White float64 `json:"white"`
	Floor float64 `json:"floor"`
}

// At is the noise of a window of seconds s.
func (n LengthNoise) At(s float64) float64 {
	return math.Sqrt(n.White*n.White/s + n.Floor*n.Floor)
}

// FitLengthNoise fits a LengthNoise to noises measured at window lengths
// (seconds), each weighted (e.g. by the windows it came from): weighted
// least squares of cv² against 1/L, with neither part below zero (a
// negative one is set to zero and the other fitted alone). False with
// fewer than two lengths, or no weight above zero.
func FitLengthNoise(lengths, cvs, weights []float64) (LengthNoise, bool) {
	var sw, sx, sy, sxx, sxy float64
	distinct := map[float64]bool{}
	for i, l := range lengths {
		w := weights[i]
		if w <= 0 || l <= 0 {
			continue
		}
		distinct[l] = true
		x, y := 1/l, cvs[i]*cvs[i]
		sw, sx, sy, sxx, sxy = sw+w, sx+w*x, sy+w*y, sxx+w*x*x, sxy+w*x*y
	}
	if len(distinct) < 2 {
		return LengthNoise{}, false
	}
	slope := (sw*sxy - sx*sy) / (sw*sxx - sx*sx)
	icept := (sy - slope*sx) / sw
	switch {
	case slope < 0: // no part falls with length: all floor
		slope, icept = 0, sy/sw
	case icept < 0: // all white: through the origin
		slope, icept = sxy/sxx, 0
	}
	return LengthNoise{White: math.Sqrt(slope), Floor: math.Sqrt(icept)}, true
}
