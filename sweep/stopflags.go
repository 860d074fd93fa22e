package sweep

import (
	"strconv"
	"strings"
)

// DefaultMaxRepeat caps automatic repetitions when no cap is given.
const DefaultMaxRepeat = 5

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
