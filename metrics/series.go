package metrics

import (
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
)

// series accumulates one container's readings. The engine reports
// lifetime counters; every figure here is a difference between two
// consecutive readings, so a container restarted mid-phase (its counters
// start again from zero) loses one second, not the phase.
type series struct {
	target Target
	limit  float64 // cores; 0 until known
	begin  *container.InspectResponse
	// waitBegin is the target's run-queue delays at the start; nil
	// where they cannot be read.
	waitBegin *waitReading
	prev      *container.StatsResponse

	samples                        []results.ContainerSample
	cpuSum, cpuMax                 float64
	periods, throttled, throttleNS uint64
	memPeak, memLimit              uint64
	online                         uint32
}

// observe folds in one reading taken t seconds after the start; st is nil
// when the reading failed.
func (s *series) observe(st *container.StatsResponse, t float64) {
	if st == nil || st.Read.IsZero() {
		return // not running or not answering: nothing to count
	}
	if mem := memNoCache(st.MemoryStats); mem > s.memPeak {
		s.memPeak = mem
	}
	s.memLimit = st.MemoryStats.Limit
	if st.CPUStats.OnlineCPUs > 0 {
		s.online = st.CPUStats.OnlineCPUs
	}
	prev := s.prev
	s.prev = st
	if prev == nil {
		return // the baseline
	}
	cores, ok := cpuCores(&prev.CPUStats, &st.CPUStats, st.Read.Sub(prev.Read))
	if !ok {
		return
	}
	pt, ct := prev.CPUStats.ThrottlingData, st.CPUStats.ThrottlingData
	throttled := ct.ThrottledPeriods - pt.ThrottledPeriods
	if ct.ThrottledPeriods >= pt.ThrottledPeriods && ct.Periods >= pt.Periods && ct.ThrottledTime >= pt.ThrottledTime {
		s.periods += ct.Periods - pt.Periods
		s.throttled += throttled
		s.throttleNS += ct.ThrottledTime - pt.ThrottledTime
	} else {
		throttled = 0
	}
	s.cpuSum += cores
	s.cpuMax = max(s.cpuMax, cores)
	s.samples = append(s.samples, results.ContainerSample{
		T:                t,
		CPUCores:         cores,
		CPUPctOfLimit:    pct(cores, s.limitCores()),
		ThrottledPeriods: throttled,
		MemBytes:         memNoCache(st.MemoryStats),
	})
	if s.target.Report != nil {
		s.target.Report(s.samples[len(s.samples)-1])
	}
}

// cpuCores is the CPU used between two readings, in cores: CPU time
// consumed over wall time elapsed. The wall time comes from the engine's
// own read stamps; without them the host's CPU time over its online CPUs
// stands in, as docker stats computes it. ok is false when the counters
// went backwards (a restart) or no time passed.
func cpuCores(prev, cur *container.CPUStats, wall time.Duration) (cores float64, ok bool) {
	used := cur.CPUUsage.TotalUsage
	if used < prev.CPUUsage.TotalUsage {
		return 0, false
	}
	delta := float64(used - prev.CPUUsage.TotalUsage)
	if wall > 0 {
		return delta / float64(wall.Nanoseconds()), true
	}
	sys := cur.SystemUsage - prev.SystemUsage
	if cur.SystemUsage <= prev.SystemUsage || cur.OnlineCPUs == 0 {
		return 0, false
	}
	return delta / float64(sys) * float64(cur.OnlineCPUs), true
}

// memNoCache is memory usage without reclaimable page cache, the figure
// docker stats shows: cgroup v1 reports total_inactive_file, v2
// inactive_file.
func memNoCache(m container.MemoryStats) uint64 {
	if v, ok := m.Stats["total_inactive_file"]; ok && v < m.Usage {
		return m.Usage - v
	}
	if v := m.Stats["inactive_file"]; v < m.Usage {
		return m.Usage - v
	}
	return m.Usage
}

// limitCores is the CPU the container may use: its limit, or every
// online CPU when it has none.
func (s *series) limitCores() float64 {
	if s.limit > 0 {
		return s.limit
	}
	return float64(s.online)
}

func pct(part, whole float64) float64 {
	if whole <= 0 {
		return 0
	}
	return part / whole * 100
}

// summary reduces the series; end is the container as inspected at the
// end of the phase (nil when it is gone).
func (s *series) summary(end *container.InspectResponse) results.ResourceStats {
	rs := results.ResourceStats{
		CPUCoresMax:      s.cpuMax,
		CPULimitCores:    s.limitCores(),
		Periods:          s.periods,
		ThrottledPeriods: s.throttled,
		ThrottledS:       float64(s.throttleNS) / 1e9,
		MemPeakBytes:     s.memPeak,
		MemLimitBytes:    s.memLimit,
		Samples:          len(s.samples),
	}
	if n := len(s.samples); n > 0 {
		rs.CPUCoresMean = s.cpuSum / float64(n)
		rs.CPUPctOfLimitMean = pct(rs.CPUCoresMean, rs.CPULimitCores)
	}
	if end == nil || end.State == nil {
		return rs
	}
	rs.OOMKilled = end.State.OOMKilled
	if b := s.begin; b != nil && b.State != nil {
		rs.Restarts = max(0, end.RestartCount-b.RestartCount)
		// The engine clears the flag when a container starts, so a flag
		// already set at the start with no restart since is stale.
		rs.OOMKilled = rs.OOMKilled && (!b.State.OOMKilled || rs.Restarts > 0)
	}
	return rs
}
