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

	"github.com/sweep-tool/sweep/results"
)

// Tick is how often the samplers read.
const Tick = time.Second

// Engine is the part of the Docker client the container sampler calls;
// *client.Client satisfies it.
type Engine interface {
	ContainerStatsOneShot(ctx context.Context, id string) (container.StatsResponseReader, error)
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
}

// Target is one container to sample.
type Target struct {
	// Service is the compose service name; results are keyed by it.
	Service string
	ID      string
	// CPULimit is the container's limit in cores; 0 reads it back from the
	// container, and when it has none the engine's online CPUs are used.
	CPULimit float64
}

// Run is a container sampler in progress.
type Run struct {
	eng    Engine
	start  time.Time
	cancel context.CancelFunc
	done   chan struct{}
	series []*series
}

// Start reads every target once as the baseline and then once per Tick
// until Stop. One-shot stats calls on a shared ticker keep the readings
// of all containers aligned to the same seconds and let Stop return
// within one call's time. Start does not fail: a target that cannot be
// read yields empty figures.
func Start(ctx context.Context, eng Engine, targets []Target) *Run {
	ctx, cancel := context.WithCancel(ctx)
	r := &Run{eng: eng, start: time.Now(), cancel: cancel, done: make(chan struct{})}
	for _, t := range targets {
		s := &series{target: t, limit: t.CPULimit}
		s.begin = inspect(ctx, eng, t.ID)
		if s.limit == 0 {
			s.limit = inspectedLimit(s.begin)
		}
		s.observe(r.read(ctx, t.ID), 0)
		r.series = append(r.series, s)
	}
	go r.loop(ctx)
	return r
}

func (r *Run) loop(ctx context.Context) {
	defer close(r.done)
	tick := time.NewTicker(Tick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			for _, s := range r.series {
				s.observe(r.read(ctx, s.target.ID), now.Sub(r.start).Seconds())
			}
		}
	}
}

// read takes one stats reading, or nil when the engine does not answer
// within a tick.
func (r *Run) read(ctx context.Context, id string) *container.StatsResponse {
	ctx, cancel := context.WithTimeout(ctx, Tick*9/10)
	defer cancel()
	resp, err := r.eng.ContainerStatsOneShot(ctx, id)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var st container.StatsResponse
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return nil
	}
	return &st
}

// Stop ends sampling and returns each service's figures and its
// per-second series. It inspects the containers once more to tell
// OOM kills and restarts, even when the start context is cancelled.
func (r *Run) Stop() (map[string]results.ResourceStats, map[string][]results.ContainerSample) {
	r.cancel()
	<-r.done
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
			mu.Lock()
			defer mu.Unlock()
			stats[s.target.Service] = rs
			samples[s.target.Service] = s.samples
		})
	}
	wg.Wait()
	return stats, samples
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
