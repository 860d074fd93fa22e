package report

import (
	"fmt"
	"math"
	"slices"
)

// MinUSLPoints is the fewest CPU limits a USL fit needs: three
// parameters, so three points at least.
const MinUSLPoints = 3

// farFactor: a prediction beyond farFactor × the largest measured CPU
// limit is flagged as far outside the measured range.
const farFactor = 2

// USL is a fit of Gunther's Universal Scalability Law,
// X(N) = λN / (1 + σ(N−1) + κN(N−1)), to one figure per CPU limit N (see
// the package doc).
type USL struct {
	// Figure names what X is: "best RPS" or "safe limit (vus)".
	Figure string
	// Sigma is contention (the serial share: locks, a single queue),
	// Kappa coherency (the cost of keeping workers in step, growing with
	// N²), Lambda the figure one CPU would give without either.
	Sigma, Kappa, Lambda float64
	// AtZero names the parameters the constraint σ, κ ≥ 0 holds at 0.
	AtZero []string
	// PeakCPUs is N* = √((1−σ)/κ), where X stops growing, and PeakValue
	// X(N*); both NaN when κ = 0 or σ ≥ 1 (no peak).
	PeakCPUs, PeakValue float64
	// R2 is 1 − SSE/SST over the measured points; DF the degrees of
	// freedom left, points − free parameters.
	R2     float64
	DF     int
	Points []USLPoint
	// Interval is where prediction intervals come from: one of the
	// Interval* constants, or empty when none can be given.
	Interval    string
	Predictions []Prediction
	// Notes are caveats of the fit as a whole.
	Notes []string
}

// At is the fitted curve X(n).
func (u *USL) At(n float64) float64 { return uslParams{u.Lambda, u.Sigma, u.Kappa}.at(n) }

// USLPoint is a measured point against the curve.
type USLPoint struct {
	CPUs     float64 `json:"cpus"`
	Measured float64 `json:"measured"`
	Fitted   float64 `json:"fitted"`
	// ResidualPct is (measured − fitted) / fitted × 100.
	ResidualPct float64 `json:"residual_pct"`
}

// Prediction is the curve at a CPU limit nobody measured.
type Prediction struct {
	CPUs, Value float64
	// Lo and Hi bound the 95 % interval; NaN when the fit has none.
	Lo, Hi float64
	// Extrapolation is true outside the measured CPU limits.
	Extrapolation bool
	// Settings are the cells the recommendation's profiles give at CPUs
	// (only the best RPS's fit has them).
	Settings []ProfileCell
	Warnings []string
}

// ProfileCell is the cell a profile's multipliers give at a CPU limit,
// by the grid's own rule (sweep.BuildPlan).
type ProfileCell struct {
	Profile    string `json:"profile"`
	Cell       string `json:"cell"`
	WebThreads int    `json:"web_threads"`
	DBPool     int    `json:"db_pool"`
}

// fitScaling fits the USL to the best RPS of each CPU limit and, when
// enough limits searched one, to the best safe limit. It returns why
// there is no fit when there is none.
func fitScaling(per []*CPUReport, predict []float64) (rps, limit *USL, why string) {
	ns, est := make([]float64, 0, len(per)), make([]Estimate, 0, len(per))
	var lns []float64
	var lest []Estimate
	open := false
	for _, cr := range per {
		ns, est = append(ns, cr.CPUs), append(est, cr.BestRPS.Cell.RPS)
		if c := cr.BestLimit.Cell; c != nil {
			lns, lest = append(lns, cr.CPUs), append(lest, c.SafeLimit.Level)
			open = open || c.SafeLimit.FailsAt == 0
		}
	}
	if len(ns) < MinUSLPoints {
		return nil, nil, fmt.Sprintf("no USL fit: the run has %d CPU limit(s) with results and the fit "+
			"needs at least %d (it has three parameters)", len(ns), MinUSLPoints)
	}
	rps, err := fitFigure("best RPS", ns, est, predict)
	if err != nil {
		return nil, nil, "no USL fit: " + err.Error()
	}
	if len(lns) >= MinUSLPoints {
		limit, _ = fitFigure(fmt.Sprintf("safe limit (%s)", limitModelOf(per)), lns, lest, predict)
	}
	if limit != nil && open {
		limit.Notes = append(limit.Notes, "at some CPU limit no load level failed, "+
			"so its point is only a lower bound and the curve may lie too low")
	}
	return rps, limit, ""
}

func limitModelOf(per []*CPUReport) string {
	for _, cr := range per {
		if c := cr.BestLimit.Cell; c != nil {
			return c.SafeLimit.Model
		}
	}
	return ""
}

// fitFigure fits the USL to the points (ns, est) and predicts at predict.
func fitFigure(figure string, ns []float64, est []Estimate, predict []float64) (*USL, error) {
	xs := make([]float64, len(est))
	for i, e := range est {
		xs[i] = e.Mean
	}
	sol, err := fitUSL(ns, xs)
	if err != nil {
		return nil, err
	}
	u := &USL{Figure: figure, Sigma: sol.Sigma, Kappa: sol.Kappa, Lambda: sol.Lambda,
		PeakCPUs: math.NaN(), PeakValue: math.NaN(), R2: 1 - sol.SSE/sol.SST, DF: len(ns) - sol.Face.size()}
	if !sol.Face.sigma {
		u.AtZero = append(u.AtZero, "sigma")
	}
	if !sol.Face.kappa {
		u.AtZero = append(u.AtZero, "kappa")
	}
	if u.Kappa > 0 && u.Sigma < 1 {
		u.PeakCPUs = math.Sqrt((1 - u.Sigma) / u.Kappa)
		u.PeakValue = sol.at(u.PeakCPUs)
	}
	for i, n := range ns {
		f := sol.at(n)
		u.Points = append(u.Points, USLPoint{CPUs: n, Measured: xs[i], Fitted: f, ResidualPct: 100 * (xs[i] - f) / f})
	}
	band, err := newUSLBand(sol, ns, est)
	if err == nil {
		u.Interval = band.Method
	} else {
		u.Notes = append(u.Notes, "no prediction interval: "+err.Error())
	}
	for _, n := range predict {
		u.Predictions = append(u.Predictions, u.predict(sol, band, err == nil, n, ns))
	}
	return u, nil
}

// predict is the curve at n with its interval and warnings; the
// settings are the picks' (Report.settled).
func (u *USL) predict(sol uslSolution, band uslBand, banded bool, n float64, ns []float64) Prediction {
	p := Prediction{CPUs: n, Value: sol.at(n), Lo: math.NaN(), Hi: math.NaN(),
		Extrapolation: n < slices.Min(ns) || n > slices.Max(ns)}
	if banded {
		p.Lo, p.Hi = band.at(n)
	}
	if n > u.PeakCPUs {
		p.Warnings = append(p.Warnings, fmt.Sprintf("past the predicted peak at %.1f CPUs: "+
			"the curve falls there, and more CPUs would lower the %s", u.PeakCPUs, u.Figure))
	}
	if top := slices.Max(ns); n > farFactor*top {
		p.Warnings = append(p.Warnings, fmt.Sprintf("more than %d× the largest measured CPU limit (%g): "+
			"so far out the curve is a rough guide, not a measurement", farFactor, top))
	}
	return p
}
