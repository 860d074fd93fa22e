package report

import (
	"fmt"
	"math"

	"github.com/sweep-tool/sweep/results"
)

// LimitSummary is a cell's safe limit over its ok repetitions, from the
// records of a run --find-limit (see the package doc).
type LimitSummary struct {
	// Model says what a level counts: vus or rate.
	Model string `json:"model"`
	// Level is the mean safe limit, 0 when no level held in any
	// repetition.
	Level Estimate `json:"level"`
	// Low is the lowest safe limit of a repetition and FailsAt the highest
	// level that failed first in a repetition, 0 when some repetition saw
	// no level fail: the searches bracket the limit in [Low, FailsAt).
	Low     int `json:"low"`
	FailsAt int `json:"fails_at,omitempty"`
	// Bottleneck is what ran out first at the failing level of the first
	// repetition that named one.
	Bottleneck string `json:"bottleneck,omitempty"`
	// SLO is the objective the searches judged the levels by.
	SLO string `json:"slo,omitempty"`
}

// summariseLimit summarises the safe limits of the ok repetitions; nil
// when they carry none.
func summariseLimit(reps []results.Rep, band float64) *LimitSummary {
	var levels []float64
	s := &LimitSummary{Low: math.MaxInt}
	open := false
	for _, r := range reps {
		sl := r.SafeLimit
		if sl == nil {
			return nil
		}
		levels = append(levels, float64(sl.Level))
		s.Model, s.SLO, s.Low, s.FailsAt = sl.Model, sl.SLO, min(s.Low, sl.Level), max(s.FailsAt, sl.FailsAt)
		open = open || sl.FailsAt == 0
		if s.Bottleneck == "" {
			s.Bottleneck = sl.Bottleneck
		}
	}
	if len(levels) == 0 {
		return nil
	}
	if open {
		s.FailsAt = 0
	}
	s.Level = estimate(levels, band)
	return s
}

// upper is the bracket's open end: infinite when no level failed.
func (s *LimitSummary) upper() float64 {
	if s.FailsAt == 0 {
		return math.Inf(1)
	}
	return float64(s.FailsAt)
}

// held reports whether the SLO held at some level in some repetition.
func (s *LimitSummary) held() bool { return s.Level.Mean > 0 }

// sameLimit reports whether the searches cannot separate two cells: their
// brackets [Low, FailsAt) overlap.
func sameLimit(a, b *Cell) bool {
	x, y := a.SafeLimit, b.SafeLimit
	return float64(x.Low) < y.upper() && float64(y.Low) < x.upper()
}

// bestLimit picks the highest mean safe limit among eligible cells that
// searched one.
func bestLimit(eligible []*Cell) Pick {
	var cells []*Cell
	for _, c := range eligible {
		if c.SafeLimit != nil {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return Pick{}
	}
	return pick(cells, func(a, b *Cell) bool { return a.SafeLimit.Level.Mean > b.SafeLimit.Level.Mean }, sameLimit)
}

// limitText is a safe-limit matrix cell's figure: ≥ when no level failed,
// <N when the first level N failed already.
func limitText(s *LimitSummary) string {
	switch {
	case !s.held():
		return fmt.Sprintf("<%d", s.FailsAt)
	case s.FailsAt == 0:
		return "≥" + formatEstimate(s.Level, MetricLimit)
	}
	return formatEstimate(s.Level, MetricLimit)
}

// limitModel is the load model of the run's safe limits.
func (r *Report) limitModel() string {
	for _, c := range r.Cells {
		if c.SafeLimit != nil {
			return c.SafeLimit.Model
		}
	}
	return ""
}

// limitNote explains the safe-limit matrix.
const limitNote = "cells show the highest load level at which the SLO held [pool size] and what ran out first " +
	"at the level that failed; ≥ no level failed (the search stopped at --max-level or --max-steps), " +
	"<N the first level, N, failed already; " + markBest + " best, " + markTie +
	" equivalent (the searches bracket the limits in overlapping ranges), " + markError + " never wins"

// addSafeLimit adds a repetition's safe limit as results.csv columns.
func addSafeLimit(row map[string]string, s *results.SafeLimit) {
	if s == nil {
		return
	}
	row["safe_limit.model"], row["safe_limit.level"] = s.Model, fmt.Sprint(s.Level)
	row["safe_limit.fails_at"], row["safe_limit.bottleneck"] = fmt.Sprint(s.FailsAt), s.Bottleneck
	row["safe_limit.slo"], row["safe_limit.steps"] = s.SLO, fmt.Sprint(s.Steps)
}
