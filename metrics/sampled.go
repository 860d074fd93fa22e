package metrics

import (
	"context"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// Counted is a target's received-bytes counter as a platform samples it
// (a kubelet's pod network statistics), with the time of the sample: the
// platform refreshes it every few seconds, not on demand.
type Counted struct {
	Bytes, Packets int64
	At             time.Time
}

// CountReceived reads the target's latest sampled counter.
type CountReceived func(ctx context.Context) (Counted, error)

// sampledReception is the proof of delivery from a sampled counter: the
// reading before the phase is the latest sample, taken at or before the
// phase's start; after the phase it waits (up to freshWait) for a sample
// taken after the phase's end, so the two samples bracket the phase.
type sampledReception struct {
	read  CountReceived
	begin Counted
	err   error
}

// freshWait bounds the wait for a sample after the phase: a kubelet's
// housekeeping refreshes its statistics every 10 to 15 s.
const freshWait = 30 * time.Second

func startSampled(ctx context.Context, read CountReceived) *sampledReception {
	r := &sampledReception{read: read}
	r.begin, r.err = read(ctx)
	return r
}

func (r *sampledReception) Stop(ctx context.Context) *results.Delivery {
	if r.err != nil {
		return none("the target's sampled counters could not be read before the phase: %v", r.err)
	}
	end := time.Now()
	deadline := end.Add(freshWait)
	for {
		c, err := r.read(ctx)
		if err != nil {
			return none("the target's sampled counters could not be read after the phase: %v", err)
		}
		if !c.At.Before(end) {
			if c.Bytes < r.begin.Bytes {
				return none("the target's network counters went back during the phase (its pod restarted)")
			}
			return &results.Delivery{Method: results.DeliveryNetwork, ReceivedBytes: c.Bytes - r.begin.Bytes,
				ReceivedPackets: c.Packets - r.begin.Packets, WindowS: c.At.Sub(r.begin.At).Seconds()}
		}
		if time.Now().After(deadline) {
			return none("no sample of the target's counters was taken within %s of the phase's end (the last at %s)", freshWait, c.At.Format(time.RFC3339))
		}
		select {
		case <-ctx.Done():
			return none("the phase was cancelled before a fresh sample of the target's counters")
		case <-time.After(time.Second):
		}
	}
}
