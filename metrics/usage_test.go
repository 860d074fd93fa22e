package metrics

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"
)

// TestUsageFrames: a platform's lifetime counters, folded in as the
// engine's stats frames are, give the phase's CPU in cores, the CFS
// periods and throttling counted over the phase, and the memory peak.
func TestUsageFrames(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 21, 0, 0, 0, time.UTC)
	s := &series{limit: 0.5}
	for i, r := range []Usage{
		{At: t0, CPUSeconds: 100, Periods: 1000, ThrottledPeriods: 100, ThrottledSeconds: 3, MemBytes: 50 << 20},
		{At: t0.Add(2 * time.Second), CPUSeconds: 100.8, Periods: 1020, ThrottledPeriods: 110, ThrottledSeconds: 3.5, MemBytes: 60 << 20},
		{At: t0.Add(4 * time.Second), CPUSeconds: 101.8, Periods: 1040, ThrottledPeriods: 125, ThrottledSeconds: 4.25, MemBytes: 55 << 20},
	} {
		s.observe(usageFrame(r), float64(2*i))
	}
	rs := s.summary(nil)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if rs.Samples != 2 || !near(rs.CPUCoresMean, 0.45) || !near(rs.CPUCoresMax, 0.5) || !near(rs.CPUPctOfLimitMean, 90) ||
		rs.Periods != 40 || rs.ThrottledPeriods != 25 || !near(rs.ThrottledS, 1.25) || rs.MemPeakBytes != 60<<20 || rs.CPULimitCores != 0.5 {
		t.Errorf("resources %+v; want 2 samples, 0.45 cores mean (90 %% of 0.5), 0.5 max, 40 periods, 25 throttled (1.25 s), 60 MiB peak", rs)
	}
}

// TestUsageOpensOncePerPhase: the Monitor opens the target's Usage once
// for a phase and then only reads it every Tick, and once more when it
// stops (every counter fresh); an open that fails (the pod not found yet)
// is tried again at the next tick. On a bubble's clock: 10 ticks of a
// phase, the first open failing.
func TestUsageOpensOncePerPhase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var opens, reads int
		t0 := time.Now()
		open := func(context.Context) (ReadUsage, error) {
			if opens++; opens == 1 {
				return nil, errors.New("deployment app: 0 running pods, want 1")
			}
			return func(context.Context, bool) (Usage, error) {
				reads++
				return Usage{At: time.Now(), CPUSeconds: time.Since(t0).Seconds() / 2}, nil
			}, nil
		}
		u := startUsage(t.Context(), open, Target{Service: "app", CPULimit: 1})
		time.Sleep(10*Tick - Tick/2)
		rs, samples := u.stop()
		if opens != 2 || reads != 10 {
			t.Errorf("%d opens, %d reads in 10 ticks; want 2 opens (the first failed), then 9 reads and the last one at the stop", opens, reads)
		}
		if rs.Samples != 9 || len(samples) != 9 || math.Abs(rs.CPUCoresMean-0.5) > 1e-9 {
			t.Errorf("%d samples, %g cores mean; want 9 (10 readings), 0.5", rs.Samples, rs.CPUCoresMean)
		}
	})
}
