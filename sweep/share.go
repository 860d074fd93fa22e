package sweep

import (
	"math"
	"strconv"
	"strings"
)

// A share is written one way everywhere (--precision, --noise,
// --error-bound): as a percent ("5%", "0.5 %") or as a bare fraction
// below 1 ("0.05"), which mean the same. A bare number of 1 or more is
// refused, not guessed at: "5" could be 5 % or 500 %, and the two units
// once meant opposite things in two commands. A change (the limits of
// --fail-on) is a percent with its sign.

// shareForms says how a share is written, for error messages.
const shareForms = "a percent (5%) or a fraction below 1 (0.05)"

// readShare reads text as a number with or without a percent sign: the
// number and whether it carried the sign; false when it is no number.
func readShare(text string) (v float64, pct, ok bool) {
	num, pct := strings.CutSuffix(strings.TrimSpace(text), "%")
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	return v, pct, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// ParseShare parses a share of a whole, from 0 up to below 100 %, as a
// fraction: "5%" and "0.05" are both 0.05. Anything else is bad input
// for field, naming the accepted forms.
func ParseShare(field, text string) (float64, error) {
	v, pct, ok := readShare(text)
	switch {
	case !ok:
		return 0, BadInput(field, "%q is not a share; give %s", text, shareForms)
	case !pct && v >= 1:
		return 0, BadInput(field, "%q is ambiguous without %%: give %s%% or %s (a percent, or a fraction below 1)",
			text, FormatNumber(v), FormatNumber(v/100))
	case pct:
		v /= 100
	}
	if v < 0 || v >= 1 {
		return 0, BadInput(field, "%q is outside 0 up to below 100 %%; give %s", text, shareForms)
	}
	return v, nil
}

// ParseChange parses a relative change, in percent: "-5%" is -5,
// "+150%" is 150. The percent sign is required: a bare "0.5" read as a
// share would be 50, where --fail-on once read it as 0.5, so a bare
// number is refused rather than read either way. Anything else is bad
// input for field.
func ParseChange(field, text string) (float64, error) {
	v, pct, ok := readShare(text)
	switch {
	case !ok:
		return 0, BadInput(field, "%q is not a change in percent, such as -5%% or +10%%", text)
	case !pct:
		return 0, BadInput(field, "%q needs its %%: give %s%% (a change is written in percent)", text, strings.TrimSpace(text))
	}
	return v, nil
}

// FormatShare writes a share back as ParseShare reads it.
func FormatShare(v float64) string {
	if v == 0 {
		return "0"
	}
	return FormatNumber(v*100) + "%"
}
