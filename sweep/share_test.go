package sweep

import (
	"errors"
	"strings"
	"testing"
)

func TestParseShare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want float64
		bad  string // a part of the error, when bad
	}{
		{"2%", 0.02, ""}, {" 0.5 % ", 0.005, ""}, {"0.02", 0.02, ""}, {"0", 0, ""}, {"0%", 0, ""},
		{"5%", 0.05, ""}, {"0.05", 0.05, ""}, {"99.5%", 0.995, ""},
		{"2", 0, `"2" is ambiguous without %: give 2% or 0.02`}, {"1", 0, "ambiguous"},
		{"100%", 0, "outside 0 up to below 100 %"}, {"150%", 0, "outside"}, {"-1%", 0, "outside"}, {"-0.5", 0, "outside"}, {"-5", 0, "outside"},
		{"two", 0, "not a share"}, {"", 0, "not a share"}, {"NaN", 0, "not a share"}, {"Inf%", 0, "not a share"},
	} {
		got, err := ParseShare("noise_band", c.in)
		if (c.bad != "") != (err != nil) || c.bad == "" && got != c.want {
			t.Errorf("%q: %v, %v", c.in, got, err)
			continue
		}
		if err == nil {
			if back, _ := ParseShare("noise_band", FormatShare(got)); back != got {
				t.Errorf("%q: written back as %q", c.in, FormatShare(got))
			}
			continue
		}
		var b *BadInputError
		if !errors.As(err, &b) || b.Field != "noise_band" || !strings.Contains(b.Msg, c.bad) {
			t.Errorf("%q: %v, want bad input of {noise_band} saying %q", c.in, err, c.bad)
		}
		if !strings.Contains(b.Msg, "a percent") || !strings.Contains(b.Msg, "a fraction below 1") {
			t.Errorf("%q: %q does not name the accepted forms", c.in, b.Msg)
		}
	}
}

// TestSharesMeanTheSameInBothForms: "N%" and the fraction N/100 are one
// share; a change is a percent and nothing else.
func TestSharesMeanTheSameInBothForms(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pct, frac string }{{"5%", "0.05"}, {"2%", "0.02"}, {"0.5%", "0.005"}, {"7%", "0.07"}} {
		a, errA := ParseShare("precision", c.pct)
		b, errB := ParseShare("precision", c.frac)
		if errA != nil || errB != nil || a != b {
			t.Errorf("share %s = %v (%v), %s = %v (%v)", c.pct, a, errA, c.frac, b, errB)
		}
	}
	for in, want := range map[string]float64{"+150%": 150, "-5%": -5, " -0.5 % ": -0.5} {
		if v, err := ParseChange("fail_on", in); err != nil || v != want {
			t.Errorf("change %q: %v, %v; want %v", in, v, err, want)
		}
	}
	for _, in := range []string{"-5", "+0.5", "-x%", "5"} {
		if _, err := ParseChange("fail_on", in); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "%") {
			t.Errorf("change %q: %v, want bad input naming the %% form", in, err)
		}
	}
}
