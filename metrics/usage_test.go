package metrics

import (
	"math"
	"testing"
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
