package metrics

import (
	"math"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
)

// TestSeriesEdges pins the series at its edges: counters that did not
// move, a reading without its online CPUs, a cache figure equal to the
// usage, no limit, no samples, and an OOM flag left over from before the
// phase.
func TestSeriesEdges(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	reading := func(s int, used uint64, online uint32, th container.ThrottlingData) *container.StatsResponse {
		st := &container.StatsResponse{Read: t0.Add(time.Duration(s) * time.Second)}
		st.CPUStats.CPUUsage.TotalUsage, st.CPUStats.OnlineCPUs, st.CPUStats.ThrottlingData = used, online, th
		return st
	}
	for _, c := range []struct {
		name                         string
		prev, cur                    container.ThrottlingData
		periods, throttled, throttNS uint64
	}{
		{"no throttling", container.ThrottlingData{Periods: 100, ThrottledPeriods: 5, ThrottledTime: 7},
			container.ThrottlingData{Periods: 200, ThrottledPeriods: 5, ThrottledTime: 7}, 100, 0, 0},
		{"no new periods", container.ThrottlingData{Periods: 100, ThrottledPeriods: 5, ThrottledTime: 7},
			container.ThrottlingData{Periods: 100, ThrottledPeriods: 7, ThrottledTime: 9}, 0, 2, 2},
		{"no throttled time", container.ThrottlingData{Periods: 100, ThrottledPeriods: 5, ThrottledTime: 7},
			container.ThrottlingData{Periods: 150, ThrottledPeriods: 6, ThrottledTime: 7}, 50, 1, 0},
	} {
		s := &series{}
		s.observe(reading(0, 0, 4, c.prev), 0)
		s.observe(reading(1, 0, 0, c.cur), 1) // no CPU used, online CPUs not reported
		rs := s.summary(nil)
		if rs.Periods != c.periods || rs.ThrottledPeriods != c.throttled || rs.ThrottledS != float64(c.throttNS)/1e9 {
			t.Errorf("%s: periods %d throttled %d (%v s), want %d %d %d ns", c.name, rs.Periods, rs.ThrottledPeriods, rs.ThrottledS,
				c.periods, c.throttled, c.throttNS)
		}
		if rs.Samples != 1 || rs.CPULimitCores != 4 || rs.CPUCoresMean != 0 || rs.CPUPctOfLimitMean != 0 {
			t.Errorf("%s: %+v, want one sample of 0 cores against the 4 online CPUs", c.name, rs)
		}
	}

	if rs := (&series{}).summary(nil); rs.Samples != 0 || rs.CPUCoresMean != 0 || math.IsNaN(rs.CPUPctOfLimitMean) {
		t.Errorf("no samples: %+v, want zeros", rs)
	}
	if p := pct(1, 0); p != 0 {
		t.Errorf("pct of nothing = %v, want 0", p)
	}
	for _, m := range []container.MemoryStats{
		{Usage: 100, Stats: map[string]uint64{"total_inactive_file": 100}},
		{Usage: 100, Stats: map[string]uint64{"inactive_file": 100}},
	} {
		if got := memNoCache(m); got != 100 {
			t.Errorf("memNoCache(%+v) = %d, want the usage when the cache is not below it", m, got)
		}
	}

	state := func(restarts int, oom bool) *container.InspectResponse {
		return &container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{
			RestartCount: restarts, State: &container.State{OOMKilled: oom}}}
	}
	if rs := (&series{begin: state(1, true)}).summary(state(1, true)); rs.OOMKilled || rs.Restarts != 0 {
		t.Errorf("an OOM flag from before the phase, no restart: %+v, want no OOM", rs)
	}
	if rs := (&series{begin: state(1, true)}).summary(state(2, true)); !rs.OOMKilled || rs.Restarts != 1 {
		t.Errorf("OOM flag and a restart in the phase: %+v, want OOM", rs)
	}
}
