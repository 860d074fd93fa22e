package steady

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestWarmupRampIsCutAtItsEnd(t *testing.T) {
	t.Parallel()
	for _, rampS := range []int{8, 15, 25} {
		for seed := range uint64(10) {
			noise := noisy(seed, 1, 0.02)
			ramp := func(s int) float64 {
				level := 1000.0
				if s < rampS {
					level = 200 + 800*float64(s)/float64(rampS)
				}
				return level * noise(s)
			}
			c := cfg(0, 0)
			c.WarmupMax = time.Minute
			d := ScanWarmup(gen(60, ramp, constant(10)), c)
			// Two windows of 5 s must both lie past the ramp's end.
			if !d.Settled || d.UsedS < float64(rampS) || d.UsedS > float64(rampS+2*warmupWindowS) {
				t.Errorf("ramp of %d s, seed %d: %+v, want settled between %d and %d s",
					rampS, seed, d, rampS, rampS+2*warmupWindowS)
			}
		}
	}
}

func TestWarmupBounds(t *testing.T) {
	t.Parallel()
	flat := gen(60, noisy(31, 1000, 0.01), constant(10))
	slow := gen(60, func(s int) float64 { return 200 + 15*float64(s) }, constant(10))
	cases := []struct {
		name      string
		series    int
		cfg       Config
		slow      bool
		stop      bool
		settled   bool
		used      float64
		reasonHas string
	}{
		{"flat settles after two windows", 60, cfg(0, 0), false, true, true, 10, "settled"},
		{"ramp to the end runs to the maximum", 60, cfg(0, 0), true, true, false, 30, "moved"},
		{"precision 0 runs to the maximum", 60, Config{WarmupMax: 20 * time.Second}, false, true, false, 20, "rule off"},
		{"no warm-up asked for", 60, Config{Precision: 0.02}, false, true, false, 0, "0 of the 10 seconds"},
		{"recording ends first", 25, Config{Precision: 0.02, WarmupMax: time.Minute}, true, false, false, 25, "moved"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := flat
			if c.slow {
				s = slow
			}
			d := ScanWarmup(s[:c.series], c.cfg)
			if d.Stop != c.stop || d.Settled != c.settled || d.UsedS != c.used {
				t.Errorf("got %+v, want stop %v settled %v at %.0f s", d, c.stop, c.settled, c.used)
			}
			if !strings.Contains(d.Reason, c.reasonHas) {
				t.Errorf("reason %q does not contain %q", d.Reason, c.reasonHas)
			}
		})
	}
}

// TestWarmupTrendWithinWindows: two windows whose means agree can still
// sit on a steady climb (a sawtooth hides it from the means); the slope
// test catches what the window means miss only when the climb is
// significant and larger than the precision.
func TestWarmupTrendWithinWindows(t *testing.T) {
	t.Parallel()
	// Per-second RPS rising 0.5 % a second: windows 2.5 % apart, over
	// the 2 % precision.
	d := CheckWarmup(gen(20, func(s int) float64 { return 1000 * (1 + 0.005*float64(s)) }, constant(1)), cfg(0, 0))
	if d.Settled || math.Abs(d.Change-0.0245) > 0.002 {
		t.Errorf("0.5 %%/s climb: %+v, want not settled, windows 2.5 %% apart", d)
	}
}
