package sweep

import (
	"strconv"
	"strings"
)

// DefaultMaxRepeat caps automatic repetitions when no cap is given.
const DefaultMaxRepeat = 5

// ParsePrecision parses a precision for the steady-state rule: a share
// with a percent sign ("2%", "0.5 %") or a fraction below 1 ("0.02");
// "0" turns the rule off.
func ParsePrecision(text string) (float64, error) {
	t := strings.TrimSpace(text)
	num, pct := strings.CutSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if pct {
		v /= 100
	}
	switch {
	case err != nil || v != v:
		return 0, BadInput("precision", "%q is not a share; give e.g. 2%% or 0.02 (0 keeps fixed durations)", text)
	case v < 0 || v >= 1:
		return 0, BadInput("precision", "%q must be from 0 up to below 100 %%, e.g. 2%% (a bare number is a fraction: 0.02)", text)
	}
	return v, nil
}

// FormatPrecision writes a precision back as ParsePrecision reads it.
func FormatPrecision(v float64) string {
	if v == 0 {
		return "0"
	}
	return FormatNumber(v*100) + "%"
}

// SetRepeat applies the repeat setting text to s: a number of
// repetitions, or "auto" (one first repetition, then automatic ones up
// to MaxRepeat, DefaultMaxRepeat unless a cap is already set).
func (s *Spec) SetRepeat(text string) error {
	t := strings.TrimSpace(text)
	if t == "auto" {
		s.Repeat, s.RepeatAuto = 1, true
		if s.MaxRepeat == 0 {
			s.MaxRepeat = DefaultMaxRepeat
		}
		return nil
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return BadInput("repeat", "%q is not a number of repetitions or auto", text)
	}
	s.Repeat, s.RepeatAuto = n, false
	return nil
}

// RepeatText writes the repeat setting back as SetRepeat reads it.
func (s Spec) RepeatText() string {
	if s.RepeatAuto {
		return "auto"
	}
	return strconv.Itoa(s.Repeat)
}
