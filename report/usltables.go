package report

import (
	"fmt"
	"math"
	"strings"
)

// uslTables are the USL fits and, when asked for, their predictions.
func uslTables(rep *Report) []table {
	var out []table
	for _, u := range []*USL{rep.USL, rep.LimitUSL} {
		if u == nil {
			continue
		}
		out = append(out, uslFitTable(u, rep.Noise))
		if len(u.Predictions) > 0 {
			out = append(out, predictionTable(rep, u))
		}
	}
	return out
}

// uslParas say why there is no fit, when a prediction was asked for.
func uslParas(rep *Report) []string {
	if rep.USL != nil || len(rep.Options.PredictCPUs) == 0 {
		return nil
	}
	return []string{rep.USLNote + "."}
}

// uslFitTable is the measured points against the curve, the parameters
// in the note.
func uslFitTable(u *USL, noise Noise) table {
	t := table{
		Title:  "Universal Scalability Law: " + u.Figure + " per CPU limit",
		Header: []string{"CPU", "measured", "USL curve", "measured vs curve"},
	}
	for _, p := range u.Points {
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.CPUs), fmt.Sprintf("%.0f", p.Measured),
			fmt.Sprintf("%.0f", p.Fitted), fmt.Sprintf("%+.1f %%", p.ResidualPct)})
	}
	s := fmt.Sprintf("X(N) = λN / (1 + σ(N−1) + κN(N−1)) fitted by least squares: σ (contention) %.4g, "+
		"κ (coherency) %.4g, λ (%s of one CPU without either) %.4g", u.Sigma, u.Kappa, u.Figure, u.Lambda)
	if len(u.AtZero) > 0 {
		greek := strings.NewReplacer("sigma", "σ", "kappa", "κ").Replace(strings.Join(u.AtZero, " and "))
		s += fmt.Sprintf(" (%s held at 0 by the constraint σ, κ ≥ 0)", greek)
	}
	if math.IsNaN(u.PeakCPUs) {
		s += "; no peak: κ = 0, the curve keeps rising"
	} else {
		s += fmt.Sprintf("; predicted peak N* = √((1−σ)/κ) = %.1f CPUs at %.0f", u.PeakCPUs, u.PeakValue)
	}
	s += fmt.Sprintf("; R² %.4f; %s", u.R2, intervalText(u, noise))
	for _, n := range u.Notes {
		s += "; " + n
	}
	t.Note = s
	return t
}

// intervalText says where the prediction intervals come from, and
// whether the noise band they rest on was measured or assumed.
func intervalText(u *USL, noise Noise) string {
	band := "the assumed noise band"
	if noise.Measured {
		band = "the run's measured noise band"
	}
	switch u.Interval {
	case IntervalRepeats:
		return "95 % prediction intervals carry the best cells' repetitions (points measured once: " + band +
			") through the fit by the delta method"
	case IntervalResiduals:
		return fmt.Sprintf("95 %% prediction intervals from the residuals by the delta method "+
			"(Student's t, %d degree(s) of freedom), never narrower than %s (%.3g %%)",
			u.DF, band, 100*noise.RPS)
	case IntervalNoiseBand:
		return fmt.Sprintf("the curve has no spare point, so its residuals cannot estimate the noise: 95 %% "+
			"prediction intervals carry %s (%.3g %%) of each point through the fit "+
			"by the delta method", band, 100*noise.RPS)
	}
	return "no prediction interval"
}

// predictionTable lists the predictions with the cells the recommended
// multipliers give there.
func predictionTable(rep *Report, u *USL) table {
	t := table{
		Title:  "Predicted " + u.Figure + " at CPU limits not measured",
		Header: []string{"CPU", "predicted", "95 % interval", "kind"},
	}
	var keys []string
	if len(u.Predictions[0].Settings) > 0 {
		for _, p := range rep.Profiles {
			if p.Found {
				keys = append(keys, p.Key)
				t.Header = append(t.Header, p.Name+" cell")
			}
		}
	}
	t.Header = append(t.Header, "warnings")
	for _, p := range u.Predictions {
		kind := "interpolation"
		if p.Extrapolation {
			kind = "extrapolation"
		}
		interval := "-"
		if !math.IsNaN(p.Lo) {
			interval = fmt.Sprintf("%.0f – %.0f", p.Lo, p.Hi)
		}
		row := []string{fmt.Sprint(p.CPUs), fmt.Sprintf("%.0f", p.Value), interval, kind}
		for i := range keys {
			s := p.Settings[i]
			row = append(row, fmt.Sprintf("web %d / pool %d", s.WebThreads, s.DBPool))
		}
		t.Rows = append(t.Rows, append(row, orNone(strings.Join(p.Warnings, "; "))))
	}
	t.Note = "predictions are the fitted curve, not measurements; extrapolation lies outside the measured CPU " +
		"limits. Cells use the recommendation's multipliers and the grid's rounding (half to even)."
	return t
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
