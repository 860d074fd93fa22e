package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// PoolerRun samples a PgBouncer once a second until Stop.
type PoolerRun struct {
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	stats results.PoolerStats
	svSum float64
	first *PoolStats
	last  *PoolStats
}

// StartPooler begins sampling b.
func StartPooler(ctx context.Context, b *PgBouncer) *PoolerRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &PoolerRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(Tick)
		defer t.Stop()
		for {
			r.observe(ctx, b)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return r
}

func (r *PoolerRun) observe(ctx context.Context, b *PgBouncer) {
	rctx, cancel := context.WithTimeout(ctx, 900*time.Millisecond)
	defer cancel()
	st, err := b.Read(rctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			r.stats.SamplesMissing++
		}
		return
	}
	s := &r.stats
	s.Samples++
	s.Mode = st.Total.Mode
	s.ClActivePeak = max(s.ClActivePeak, st.Total.ClActive)
	s.ClWaitingPeak = max(s.ClWaitingPeak, st.Total.ClWaiting)
	s.SvActivePeak = max(s.SvActivePeak, st.Total.SvActive)
	s.MaxWaitPeakS = max(s.MaxWaitPeakS, st.Total.MaxWait.Seconds())
	r.svSum += float64(st.Total.SvActive)
	if r.first == nil {
		r.first = &st
	}
	r.last = &st
}

// Stop ends sampling and returns the summary.
func (r *PoolerRun) Stop() results.PoolerStats {
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.stats
	if s.Samples > 0 {
		s.SvActiveMean = r.svSum / float64(s.Samples)
	}
	if r.first != nil && r.last != r.first {
		if dt := r.last.At.Sub(r.first.At).Seconds(); dt > 0 {
			s.QueriesPerSMean = float64(r.last.Traffic.Queries-r.first.Traffic.Queries) / dt
		}
	}
	return s
}
