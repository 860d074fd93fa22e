// Package metrics holds the samplers that run beside the load during a
// measured phase: one reads the stack's containers through the Docker
// Engine API, the other reads PostgreSQL's statistics views over a single
// pgx connection. Both tick once a second, keep a per-second series and
// reduce it to the record blocks of package results when stopped. They are
// shaped as Start/Stop pairs so the runner can bracket exactly the
// measured phase, and they never fail a cell: a reading that cannot be
// taken is counted as missing.
package metrics

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/results"
)

// Tick is how often the samplers read.
const Tick = time.Second

// Engine is the part of the Docker client the container sampler calls;
// *client.Client satisfies it.
type Engine interface {
	ContainerStats(ctx context.Context, id string, stream bool) (container.StatsResponseReader, error)
	ContainerStatsOneShot(ctx context.Context, id string) (container.StatsResponseReader, error)
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
}

// The real client is an Engine: a method missing from it fails the build.
var _ Engine = (*client.Client)(nil)

// Target is one container to sample.
type Target struct {
	// Service is the compose service name; results are keyed by it.
	Service string
	ID      string
	// CPULimit is the container's limit in cores; 0 reads it back from the
	// container, and when it has none the engine's online CPUs are used.
	CPULimit float64
	// Report, when set, is given each reading as it is taken (from the
	// sampler's goroutine).
	Report func(results.ContainerSample)
}

// Run is a container sampler in progress.
type Run struct {
	eng   Engine
	procs procFS
	// cgroups is the cgroup file systems' root, for the lists of a
	// target's tasks.
	cgroups string
	start   time.Time
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	series  []*series
}

// Start follows each target's stats stream until Stop. The engine
// (20.10 at least) gathers stats once a second for all its subscribers
// and a one-shot request waits for that gathering too (0.5 s on
// average), so one long-lived stream per container is both the cheaper
// and the more punctual way to read once a second. The first frame is the
// baseline; figures cover the frames after it. Start does not fail: a
// target that cannot be read yields empty figures. Where a target's
// processes are this machine's, their run-queue delay is read from /proc
// at the start and at Stop (ResourceStats.CPUWaitCoresMean).
func Start(ctx context.Context, eng Engine, targets []Target) *Run {
	return start(ctx, eng, targets, "/proc", "/sys/fs/cgroup")
}

// start is Start with the proc file system at procs and the cgroup ones
// under cgroups.
func start(ctx context.Context, eng Engine, targets []Target, procs procFS, cgroups string) *Run {
	ctx, cancel := context.WithCancel(ctx)
	r := &Run{eng: eng, procs: procs, cgroups: cgroups, start: time.Now(), cancel: cancel}
	for _, t := range targets {
		s := &series{target: t, limit: t.CPULimit}
		s.begin = inspect(ctx, eng, t.ID)
		if s.limit == 0 {
			s.limit = inspectedLimit(s.begin)
		}
		s.waitBegin = readWait(procs, cgroups, s.begin)
		r.series = append(r.series, s)
		r.wg.Go(func() { r.follow(ctx, s) })
	}
	return r
}

// follow reads s's stream until ctx ends, opening it again a tick after
// it breaks (the engine ends it when the container stops).
func (r *Run) follow(ctx context.Context, s *series) {
	for {
		r.stream(ctx, s)
		select {
		case <-ctx.Done():
			return
		case <-time.After(Tick):
		}
	}
}

func (r *Run) stream(ctx context.Context, s *series) {
	resp, err := r.eng.ContainerStats(ctx, s.target.ID, true)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var st container.StatsResponse
		if err := dec.Decode(&st); err != nil {
			return // cancelled by Stop, or the stream broke
		}
		s.observe(&st, time.Since(r.start).Seconds())
	}
}

// Stop ends sampling and returns each service's figures and its
// per-second series. It inspects the containers once more to tell
// OOM kills and restarts, even when the start context is cancelled.
func (r *Run) Stop() (map[string]results.ResourceStats, map[string][]results.ContainerSample) {
	r.cancel()
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	stats := make(map[string]results.ResourceStats, len(r.series))
	samples := make(map[string][]results.ContainerSample, len(r.series))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range r.series {
		wg.Go(func() {
			end := inspect(ctx, r.eng, s.target.ID)
			rs := s.summary(end)
			rs.CPUWaitCoresMean = s.waitBegin.coresUntil(readWait(r.procs, r.cgroups, end))
			mu.Lock()
			defer mu.Unlock()
			stats[s.target.Service] = rs
			samples[s.target.Service] = s.samples
		})
	}
	wg.Wait()
	return stats, samples
}

// waitReading is the run-queue delay of a container's tasks, read from
// /proc at one moment.
type waitReading struct {
	group  string
	at     time.Time
	delays map[int]uint64
}

// readWait reads container c's run-queue delays; nil when its processes
// are not this machine's or cannot be read.
func readWait(p procFS, cgroups string, c *container.InspectResponse) *waitReading {
	group, ok := p.groupOf(c)
	if !ok {
		return nil
	}
	at := time.Now()
	delays, err := p.runDelays(group, cgroups)
	if err != nil {
		return nil
	}
	return &waitReading{group: group, at: at, delays: delays}
}

// coresUntil is the delay accrued from w to end over the time between
// them, in cores; nil when either is missing or end is another
// container's (its cgroup changed).
func (w *waitReading) coresUntil(end *waitReading) *float64 {
	if w == nil || end == nil || end.group != w.group || !end.at.After(w.at) {
		return nil
	}
	cores := float64(waitedBetween(w.delays, end.delays)) / float64(end.at.Sub(w.at).Nanoseconds())
	return &cores
}

func inspect(ctx context.Context, eng Engine, id string) *container.InspectResponse {
	c, err := eng.ContainerInspect(ctx, id)
	if err != nil || c.ContainerJSONBase == nil {
		return nil
	}
	return &c
}

// inspectedLimit is the CPU limit a container was created with, in cores.
func inspectedLimit(c *container.InspectResponse) float64 {
	if c == nil || c.HostConfig == nil {
		return 0
	}
	h := c.HostConfig
	switch {
	case h.NanoCPUs > 0:
		return float64(h.NanoCPUs) / 1e9
	case h.CPUQuota > 0 && h.CPUPeriod > 0:
		return float64(h.CPUQuota) / float64(h.CPUPeriod)
	}
	return 0
}
