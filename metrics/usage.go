package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
)

// Usage is a container's lifetime counters as a platform's metrics give
// them (a kubelet's /metrics/cadvisor), with the time they were taken:
// CPU time, CFS periods and throttling, and the memory working set.
type Usage struct {
	At                        time.Time
	CPUSeconds                float64
	Periods, ThrottledPeriods uint64
	ThrottledSeconds          float64
	MemBytes                  uint64
}

// ReadUsage reads the target's latest Usage.
type ReadUsage func(ctx context.Context) (Usage, error)

// usageRun samples a target's Usage every Tick and folds each new reading
// (a later At) into a series, as the Docker Engine's stats frames are: the
// same figures, the same per-second samples where the platform refreshes
// its counters that often (a kubelet's cAdvisor every 10 s or so: fewer
// samples, the phase's totals alike).
type usageRun struct {
	s      *series
	start  time.Time
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startUsage(ctx context.Context, read ReadUsage, t Target) *usageRun {
	ctx, cancel := context.WithCancel(ctx)
	u := &usageRun{s: &series{target: t, limit: t.CPULimit}, start: time.Now(), cancel: cancel}
	u.wg.Go(func() {
		var last time.Time
		for {
			if r, err := read(ctx); err == nil && r.At.After(last) {
				last = r.At
				u.s.observe(usageFrame(r), r.At.Sub(u.start).Seconds())
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(Tick):
			}
		}
	})
	return u
}

// stop ends the sampling and returns the target's figures and samples.
func (u *usageRun) stop() (results.ResourceStats, []results.ContainerSample) {
	u.cancel()
	u.wg.Wait()
	return u.s.summary(nil), u.s.samples
}

// usageFrame is r as the Docker Engine's stats frame the series reads.
func usageFrame(r Usage) *container.StatsResponse {
	var st container.StatsResponse
	st.Read = r.At
	st.CPUStats.CPUUsage.TotalUsage = uint64(r.CPUSeconds * 1e9)
	st.CPUStats.ThrottlingData = container.ThrottlingData{Periods: r.Periods, ThrottledPeriods: r.ThrottledPeriods,
		ThrottledTime: uint64(r.ThrottledSeconds * 1e9)}
	st.MemoryStats.Usage = r.MemBytes
	return &st
}
