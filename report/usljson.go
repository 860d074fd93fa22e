package report

import (
	"math"
	"strconv"
)

// USLDoc is the usl object of results.json and --json: the fit of the
// best RPS per CPU limit, and under safe_limit the fit of the best safe
// limits when the cells searched them. Figures that do not exist (no
// peak, no interval) are null.
type USLDoc struct {
	Figure string  `json:"figure"`
	Sigma  float64 `json:"sigma"`
	Kappa  float64 `json:"kappa"`
	Lambda float64 `json:"lambda"`
	// PeakCPUs is N* = √((1−σ)/κ), null when κ ≤ 0; PeakValue X(N*).
	PeakCPUs    *float64        `json:"peak_cpus"`
	PeakValue   *float64        `json:"peak_value"`
	R2          float64         `json:"r2"`
	AtZero      []string        `json:"at_zero"`
	Interval    *string         `json:"interval"`
	Points      []USLPoint      `json:"points"`
	Predictions []PredictionDoc `json:"predictions"`
	Notes       []string        `json:"notes"`
	SafeLimit   *USLDoc         `json:"safe_limit,omitempty"`
}

// PredictionDoc is a prediction: rps for the RPS fit, level for the
// safe-limit fit, and the 95 % interval [lo, hi].
type PredictionDoc struct {
	CPUs          float64       `json:"cpus"`
	RPS           *float64      `json:"rps,omitempty"`
	Level         *float64      `json:"level,omitempty"`
	Lo            *float64      `json:"lo"`
	Hi            *float64      `json:"hi"`
	Extrapolation bool          `json:"extrapolation"`
	Settings      []ProfileCell `json:"settings,omitempty"`
	Warnings      []string      `json:"warnings"`
}

// uslDoc is the document of a fit; nil without one. Fitted figures are
// rounded to six significant digits: far finer than any fit's
// uncertainty, and stable against the optimiser's last bits.
func uslDoc(u *USL, limit bool) *USLDoc {
	if u == nil {
		return nil
	}
	d := &USLDoc{Figure: u.Figure, Sigma: sig6(u.Sigma), Kappa: sig6(u.Kappa), Lambda: sig6(u.Lambda),
		PeakCPUs: finite(u.PeakCPUs), PeakValue: finite(u.PeakValue), R2: sig6(u.R2), AtZero: nonNil(u.AtZero),
		Predictions: []PredictionDoc{}, Notes: nonNil(u.Notes)}
	for _, p := range u.Points {
		d.Points = append(d.Points, USLPoint{CPUs: p.CPUs, Measured: p.Measured, Fitted: sig6(p.Fitted),
			ResidualPct: sig6(p.ResidualPct)})
	}
	if u.Interval != "" {
		d.Interval = &u.Interval
	}
	for _, p := range u.Predictions {
		pd := PredictionDoc{CPUs: p.CPUs, Lo: finite(p.Lo), Hi: finite(p.Hi), Extrapolation: p.Extrapolation,
			Settings: p.Settings, Warnings: nonNil(p.Warnings)}
		if limit {
			pd.Level = finite(p.Value)
		} else {
			pd.RPS = finite(p.Value)
		}
		d.Predictions = append(d.Predictions, pd)
	}
	return d
}

// finite is a pointer to x rounded by sig6, or nil (JSON null) when x is
// NaN or infinite.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	x = sig6(x)
	return &x
}

// sig6 rounds x to six significant digits.
func sig6(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 6, 64), 64)
	return r
}
