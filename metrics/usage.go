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

// ReadUsage reads the target's latest Usage. A platform may serve some
// counters as it read them a while ago (a kubelet's CFS counters);
// fresh asks for every one of them now: the phase's last reading, which
// closes its totals.
type ReadUsage func(ctx context.Context, fresh bool) (Usage, error)

// OpenUsage looks the target up for one phase (its pod, its node) and
// returns the reader of its Usage over that phase, so the phase's
// readings ask for the figures only, not again where the target is.
type OpenUsage func(ctx context.Context) (ReadUsage, error)

// usageRun opens the target's Usage for the phase (again each Tick until
// that succeeds), then samples it every Tick and folds each new reading
// (a later At) into a series, as the Docker Engine's stats frames are: the
// same figures, the same per-second samples where the platform refreshes
// its counters that often (a kubelet's cAdvisor every 10 s or so: fewer
// samples, the phase's totals alike).
type usageRun struct {
	s      *series
	start  time.Time
	ctx    context.Context // the samplers', for the last reading
	cancel context.CancelFunc
	wg     sync.WaitGroup
	read   ReadUsage // once opened
	last   time.Time // the latest reading's At
}

// lastRead bounds the phase's last reading, taken once sampling stopped.
const lastRead = 5 * time.Second

func startUsage(ctx context.Context, open OpenUsage, t Target) *usageRun {
	u := &usageRun{s: &series{target: t, limit: t.CPULimit}, start: time.Now(), ctx: ctx}
	ctx, u.cancel = context.WithCancel(ctx)
	u.wg.Go(func() {
		for {
			if u.read == nil {
				u.read, _ = open(ctx) // not found yet: again at the next tick
			}
			if u.read != nil {
				u.observe(u.read(ctx, false))
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

// observe folds a new reading into the series.
func (u *usageRun) observe(r Usage, err error) {
	if err == nil && r.At.After(u.last) {
		u.last = r.At
		u.s.observe(usageFrame(r), r.At.Sub(u.start).Seconds())
	}
}

// stop ends the sampling, takes the phase's last reading with every
// counter fresh (within lastRead), and returns the target's figures and
// samples.
func (u *usageRun) stop() (results.ResourceStats, []results.ContainerSample) {
	u.cancel()
	u.wg.Wait()
	if u.read != nil {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(u.ctx), lastRead)
		u.observe(u.read(ctx, true))
		cancel()
	}
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
