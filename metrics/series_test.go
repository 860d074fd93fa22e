package metrics

import (
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
)

func TestCPUCores(t *testing.T) {
	t.Parallel()
	cpu := func(used, sys uint64, online uint32) *container.CPUStats {
		return &container.CPUStats{CPUUsage: container.CPUUsage{TotalUsage: used}, SystemUsage: sys, OnlineCPUs: online}
	}
	cases := []struct {
		name      string
		prev, cur *container.CPUStats
		wall      time.Duration
		want      float64
		ok        bool
	}{
		{"half a core over wall time", cpu(1e9, 0, 2), cpu(1.5e9, 0, 2), time.Second, 0.5, true},
		{"two cores over 2 s", cpu(0, 0, 4), cpu(4e9, 0, 4), 2 * time.Second, 2, true},
		{"no stamps: host time over online cpus", cpu(0, 10e9, 2), cpu(0.5e9, 12e9, 2), 0, 0.5, true},
		{"counter went back (restart)", cpu(5e9, 0, 2), cpu(1e9, 0, 2), time.Second, 0, false},
		{"no time at all", cpu(0, 10e9, 2), cpu(1e9, 10e9, 2), 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, ok := cpuCores(c.prev, c.cur, c.wall)
			if ok != c.ok || math.Abs(got-c.want) > 1e-9 {
				t.Errorf("cpuCores = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestMemNoCache(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		mem  container.MemoryStats
		want uint64
	}{
		{"cgroup v1", container.MemoryStats{Usage: 100, Stats: map[string]uint64{"total_inactive_file": 30, "inactive_file": 10}}, 70},
		{"cgroup v2", container.MemoryStats{Usage: 100, Stats: map[string]uint64{"inactive_file": 40}}, 60},
		{"cache above usage", container.MemoryStats{Usage: 100, Stats: map[string]uint64{"total_inactive_file": 300}}, 100},
		{"no stats", container.MemoryStats{Usage: 100}, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := memNoCache(c.mem); got != c.want {
				t.Errorf("memNoCache = %d, want %d", got, c.want)
			}
		})
	}
}

// TestSeriesAcrossRestart feeds readings where the container restarts
// (counters start again) and one reading fails: the figures count the
// good intervals only and the restart is read from inspect.
func TestSeriesAcrossRestart(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	reading := func(s int, used, periods, throttled uint64) *container.StatsResponse {
		st := &container.StatsResponse{Read: t0.Add(time.Duration(s) * time.Second)}
		st.CPUStats.CPUUsage.TotalUsage = used
		st.CPUStats.OnlineCPUs = 2
		st.CPUStats.ThrottlingData = container.ThrottlingData{Periods: periods, ThrottledPeriods: throttled, ThrottledTime: throttled * 1e7}
		st.MemoryStats = container.MemoryStats{Usage: 1000 * used / 1e8, Limit: 1 << 30}
		return st
	}
	state := func(restarts int, oom bool) *container.InspectResponse {
		return &container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{
			RestartCount: restarts, State: &container.State{OOMKilled: oom}}}
	}
	s := &series{target: Target{Service: "web"}, limit: 0.5, begin: state(1, false)}
	s.observe(reading(0, 0, 0, 0), 0)
	s.observe(reading(1, 5e8, 10, 8), 1)  // 0.5 cores, 8 throttled
	s.observe(nil, 2)                     // the engine did not answer
	s.observe(reading(3, 7e8, 30, 12), 3) // 0.1 cores over 2 s
	s.observe(reading(4, 1e8, 10, 2), 4)  // restarted: counters back, skipped
	s.observe(reading(5, 4e8, 20, 5), 5)  // 0.3 cores
	rs := s.summary(state(2, true))
	if rs.Samples != 3 || math.Abs(rs.CPUCoresMean-0.3) > 1e-9 || rs.CPUCoresMax != 0.5 {
		t.Errorf("cpu: %+v", rs)
	}
	if rs.ThrottledPeriods != 15 || rs.Periods != 40 || math.Abs(rs.ThrottledS-0.15) > 1e-9 {
		t.Errorf("throttling: %+v", rs)
	}
	if math.Abs(rs.CPUPctOfLimitMean-60) > 1e-9 || rs.CPULimitCores != 0.5 {
		t.Errorf("pct of limit: %+v", rs)
	}
	if rs.MemPeakBytes != 7000 || rs.MemLimitBytes != 1<<30 || rs.Restarts != 1 || !rs.OOMKilled {
		t.Errorf("memory/state: %+v", rs)
	}
}

// TestSeriesReportsEachReading: a target's Report gets every sample the
// series keeps, as it keeps it, and nothing for the baseline.
func TestSeriesReportsEachReading(t *testing.T) {
	t.Parallel()
	var reported []results.ContainerSample
	s := &series{target: Target{Service: "app", CPULimit: 2, Report: func(c results.ContainerSample) {
		reported = append(reported, c)
	}}, limit: 2}
	for i, used := range []uint64{0, 1e9, 2.5e9} { // cumulative CPU ns, one reading a second
		st := stats(time.Duration(i)*time.Second, used, nil)
		s.observe(&st, float64(i))
	}
	want := []results.ContainerSample{{T: 1, CPUCores: 1, CPUPctOfLimit: 50}, {T: 2, CPUCores: 1.5, CPUPctOfLimit: 75}}
	if !reflect.DeepEqual(reported, want) || !reflect.DeepEqual(s.samples, want) {
		t.Errorf("reported %+v, kept %+v; want %+v", reported, s.samples, want)
	}
}
