package sweep

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSetRepeat(t *testing.T) {
	t.Parallel()
	var s Spec
	if err := s.SetRepeat("auto"); err != nil || !s.RepeatAuto || s.Repeat != 1 || s.MaxRepeat != DefaultMaxRepeat || s.RepeatText() != "auto" {
		t.Errorf("auto: %v %+v", err, s)
	}
	s = Spec{MaxRepeat: 3}
	if err := s.SetRepeat("auto"); err != nil || s.MaxRepeat != 3 {
		t.Errorf("auto after a cap of 3: %v, cap %d", err, s.MaxRepeat)
	}
	if err := s.SetRepeat("4"); err != nil || s.RepeatAuto || s.Repeat != 4 || s.RepeatText() != "4" {
		t.Errorf("4: %v %+v", err, s)
	}
	if err := s.SetRepeat("often"); !errors.Is(err, ErrBadInput) {
		t.Errorf("often: %v", err)
	}
}

// TestPlanSaysWhatAdaptsOnlyWhenAsked: the plan's estimate is the longest
// with a precision and leaves out automatic repetitions, and says so; a
// plain grid's plan has neither line.
func TestPlanSaysWhatAdaptsOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	var plain, adaptive strings.Builder
	s := testSpec()
	if err := WritePlan(&plain, s); err != nil {
		t.Fatal(err)
	}
	s.Precision, s.MinDuration, s.RepeatAuto, s.MaxRepeat = 0.02, Duration(time.Second), true, 4
	if err := WritePlan(&adaptive, s); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "steady") || strings.Contains(plain.String(), "repeated") {
		t.Errorf("a plain grid's plan speaks of adapting:\n%s", plain.String())
	}
	for _, want := range []string{"steady within ±2% (never before 1s)", "up to 4 repetitions each"} {
		if !strings.Contains(adaptive.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, adaptive.String())
		}
	}
}
