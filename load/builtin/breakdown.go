package builtin

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/sweep-tool/sweep/results"
)

// The phases of a request, in results.Breakdown's order.
const (
	phConnect = iota
	phTLS
	phSending
	phWaiting
	phReceiving
	numPhases
)

// phasesUS turns the timing of a request that got a response into
// microseconds per phase, each clamped to [0, highestUS].
func (t *timing) phasesUS(highestUS int64) [numPhases]int64 {
	d := [numPhases]time.Duration{
		phConnect:   t.connect,
		phTLS:       t.tls,
		phSending:   t.writeEnd.Sub(t.writeStart),
		phWaiting:   t.firstByte.Sub(t.writeEnd),
		phReceiving: t.end.Sub(t.firstByte),
	}
	var us [numPhases]int64
	for i, x := range d {
		us[i] = min(max(x.Microseconds(), 0), highestUS)
	}
	return us
}

// phaseAcc is one shard's breakdown: a histogram per phase and the count
// of requests that opened a connection.
type phaseAcc struct {
	hists   [numPhases]*hdrhistogram.Histogram
	dialled int64
}

func newPhaseAcc(highestUS int64) phaseAcc {
	var a phaseAcc
	for i := range a.hists {
		a.hists[i] = newHist(highestUS)
	}
	return a
}

// add records one request's phases; the shard's lock is held.
func (a *phaseAcc) add(us *[numPhases]int64, dialled bool) {
	for i, v := range us {
		_ = a.hists[i].RecordValue(v) // v is within range
	}
	if dialled {
		a.dialled++
	}
}

// breakdown merges the shards' phases; nil when no request got a
// response.
func (r *recorder) breakdown() *results.Breakdown {
	all := newPhaseAcc(r.highestUS)
	for _, s := range r.shards {
		for i, h := range s.phases.hists {
			all.hists[i].Merge(h)
		}
		all.dialled += s.phases.dialled
	}
	if all.hists[phConnect].TotalCount() == 0 {
		return nil
	}
	return &results.Breakdown{
		Connect:        latency(all.hists[phConnect]),
		TLS:            latency(all.hists[phTLS]),
		Sending:        latency(all.hists[phSending]),
		Waiting:        latency(all.hists[phWaiting]),
		Receiving:      latency(all.hists[phReceiving]),
		NewConnections: all.dialled,
	}
}
