package steady

import "github.com/sweep-tool/sweep/results"

// batch is consecutive seconds of a phase summed up.
type batch struct {
	seconds  int
	requests float64
	spanS    float64 // wall time the batch covers
	// p99Sum and p99Weight give the request-weighted mean p99 of the
	// seconds that reported one.
	p99Sum, p99Weight float64
}

// batchSeconds is the batch length for a phase of n seconds.
func batchSeconds(n int) int { return max(minBatchS, n/targetBatches) }

// Batches cuts series into whole batches of size seconds that end at its
// newest second (the oldest seconds that do not fill one are left out) and
// returns each batch's RPS (requests over the time it covers) and p99 (the
// request-weighted mean of its seconds' p99s); p99 is nil when some batch
// has no second with a p99. The stopping rule's batch means are these with
// its own batch size; a replay uses them to measure a round's noise.
func Batches(series []results.Interval, size int) (rps, p99 []float64) {
	rps, p99, _ = batchFigures(batchesOf(series, max(1, size)))
	return rps, p99
}

// batchesOf cuts series into whole batches of size seconds that end at
// its newest second.
func batchesOf(series []results.Interval, size int) []batch {
	k := len(series) / size
	skip := len(series) - k*size
	out := make([]batch, k)
	for i := skip; i < len(series); i++ {
		b := &out[(i-skip)/size]
		iv := series[i]
		b.seconds++
		b.requests += float64(iv.Requests)
		b.spanS += iv.T - prevT(series, i)
		if iv.P99MS > 0 && iv.Requests > 0 {
			b.p99Sum += iv.P99MS * float64(iv.Requests)
			b.p99Weight += float64(iv.Requests)
		}
	}
	return out
}

// prevT is when interval i began: the end of the one before, or the
// phase's start.
func prevT(series []results.Interval, i int) float64 {
	if i == 0 {
		return 0
	}
	return series[i-1].T
}

// batchFigures returns each batch's RPS and p99; p99 is known only when
// every batch has one.
func batchFigures(bs []batch) (rps, p99 []float64, p99Known bool) {
	p99Known = true
	for _, b := range bs {
		r := 0.0
		if b.spanS > 0 {
			r = b.requests / b.spanS
		}
		rps = append(rps, r)
		if b.p99Weight == 0 {
			p99Known = false
			continue
		}
		p99 = append(p99, b.p99Sum/b.p99Weight)
	}
	if !p99Known {
		p99 = nil
	}
	return rps, p99, p99Known
}
