package sweep

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParsePrecision(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{"2%", 0.02, false}, {" 0.5 % ", 0.005, false}, {"0.02", 0.02, false}, {"0", 0, false}, {"0%", 0, false},
		{"2", 0, true}, {"100%", 0, true}, {"-1%", 0, true}, {"two", 0, true}, {"", 0, true}, {"NaN", 0, true},
	} {
		got, err := ParsePrecision(c.in)
		if c.bad != (err != nil) || !c.bad && got != c.want {
			t.Errorf("%q: %v, %v", c.in, got, err)
		}
		if err != nil && !errors.Is(err, ErrBadInput) {
			t.Errorf("%q: %v is not bad input", c.in, err)
		}
		if err == nil {
			if back, _ := ParsePrecision(FormatPrecision(got)); back != got {
				t.Errorf("%q: written back as %q", c.in, FormatPrecision(got))
			}
		}
	}
}

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
