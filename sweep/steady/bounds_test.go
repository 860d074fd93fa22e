package steady

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func TestDurationBounds(t *testing.T) {
	t.Parallel()
	flat := gen(300, noisy(11, 1000, 0.01), constant(10))
	rising := gen(300, func(s int) float64 { return 1000 * (1 + 0.002*float64(s)) }, constant(10))
	cases := []struct {
		name      string
		series    []results.Interval
		cfg       Config
		stop      bool
		early     bool
		elapsed   float64
		reasonHas string
	}{
		{"flat, minimum 90 s", flat, cfg(90*time.Second, 5*time.Minute), true, true, 90, "steady"},
		{"flat, minimum above the maximum", flat, cfg(10*time.Minute, 2*time.Minute), true, false, 120, "steady"},
		{"drift, maximum 90 s", rising, cfg(30*time.Second, 90*time.Second), true, false, 90, "drifts"},
		{"precision 0 runs to the maximum", flat, Config{MaxDuration: 100 * time.Second}, true, false, 100, "rule off"},
		{"recording shorter than the minimum", flat[:40], cfg(60*time.Second, 5*time.Minute), false, false, 40, "shorter than the minimum"},
		{"too short for five batches", flat[:20], cfg(0, 5*time.Minute), false, false, 20, "4 of the 5 batches"},
		{"no maximum, never steady", rising, cfg(30*time.Second, 0), false, false, 300, "drifts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d := Scan(c.series, c.cfg)
			if d.Stop != c.stop || d.StoppedEarly != c.early || d.ElapsedS != c.elapsed {
				t.Errorf("got stop %v early %v at %.0f s, want %v %v at %.0f s (%s)",
					d.Stop, d.StoppedEarly, d.ElapsedS, c.stop, c.early, c.elapsed, d.Reason)
			}
			if !strings.Contains(d.Reason, c.reasonHas) {
				t.Errorf("reason %q does not contain %q", d.Reason, c.reasonHas)
			}
			if c.early != (d.SteadyAfterS > 0) {
				t.Errorf("steady_after_s %.0f with stopped early %v", d.SteadyAfterS, d.StoppedEarly)
			}
		})
	}
}

// TestScanMatchesCheck holds the offline scan to the online loop: Check
// called after every second stops exactly where Scan says.
func TestScanMatchesCheck(t *testing.T) {
	t.Parallel()
	for seed := range uint64(5) {
		s := gen(240, noisy(seed, 1500, 0.06), noisy(seed+50, 12, 0.08))
		c := cfg(20*time.Second, 4*time.Minute)
		want := Scan(s, c)
		for k := 1; k <= len(s); k++ {
			if d := Check(s[:k], c); d.Stop {
				if d.ElapsedS != want.ElapsedS || d.StoppedEarly != want.StoppedEarly || d.Precision != want.Precision {
					t.Errorf("seed %d: online stop %+v, scan %+v", seed, d, want)
				}
				break
			}
		}
	}
}

func TestWithoutP99OrRequests(t *testing.T) {
	t.Parallel()
	d := Scan(gen(120, noisy(21, 1000, 0.01), constant(0)), cfg(30*time.Second, 2*time.Minute))
	if d.P99Known || !d.StoppedEarly || d.SteadyAfterS != 30 {
		t.Errorf("driver without p99: %+v, want a stop on RPS alone at 30 s", d)
	}
	d = Scan(gen(120, constant(0), constant(0)), cfg(30*time.Second, 2*time.Minute))
	if d.StoppedEarly || d.Reason != "no requests" {
		t.Errorf("no requests: %+v", d)
	}
	// A stall: ten seconds without a request in the middle of a flat phase.
	stall := func(s int) float64 {
		if s > 30 && s <= 40 {
			return 0
		}
		return 1000
	}
	d = Check(gen(60, stall, constant(10)), cfg(30*time.Second, 2*time.Minute))
	if d.Steady {
		t.Errorf("stalled phase called steady: %+v", d)
	}
}

// TestPartialSeconds feeds intervals that are not exactly one second long,
// as a driver's final partial second is: RPS is requests over time.
func TestPartialSeconds(t *testing.T) {
	t.Parallel()
	var s []results.Interval
	for i := 1; i <= 60; i++ {
		s = append(s, results.Interval{T: float64(i) * 0.5, Requests: 500, P99MS: 10})
	}
	d := Check(s, cfg(0, time.Minute))
	if math.Abs(d.RPS-1000) > 1e-9 || d.Precision != 0 || !d.Steady {
		t.Errorf("half-second intervals of 500 requests: %+v, want 1000 RPS, steady", d)
	}
}

func TestBatches(t *testing.T) {
	t.Parallel()
	// 12 seconds of 100, 200, 300, …: batches of 5 end at the newest
	// second, so the first two seconds are left out.
	var s []results.Interval
	for i := 1; i <= 12; i++ {
		s = append(s, results.Interval{T: float64(i), Requests: int64(100 * i), P99MS: float64(i)})
	}
	rps, p99 := Batches(s, 5)
	if len(rps) != 2 || rps[0] != 500 || rps[1] != 1000 {
		t.Errorf("RPS %v, want [500 1000]", rps)
	}
	// Request-weighted: (3·300 + 4·400 + … + 7·700) / (300 + … + 700).
	if len(p99) != 2 || math.Abs(p99[0]-5.4) > 1e-9 {
		t.Errorf("p99 %v, want 5.4 first", p99)
	}
	for i := 2; i <= 6; i++ { // every second of the first batch
		s[i].P99MS = 0
	}
	if _, p99 := Batches(s, 5); p99 != nil {
		t.Errorf("a batch without any p99 gave %v, want nil", p99)
	}
}
