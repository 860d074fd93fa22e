package builtin

import (
	"reflect"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// The latencies below stay under 2048 µs, where a 3-significant-digit HDR
// histogram is exact (one value per bucket), so every expected figure is
// plain arithmetic on the recorded values. A quantile q of n values is the
// k-th smallest with k = round(q/100 × n), as HdrHistogram defines it.

// testOps are the recorder tests' operations, the demo's, and their
// indices.
var testOps = results.Operations

const (
	opCreate = iota
	opRead
	opUpdate
	opDelete
)

// response is a request that got an answer after us microseconds.
func response(start time.Time, us int) *timing {
	end := start.Add(time.Duration(us) * time.Microsecond)
	return &timing{writeStart: start, writeEnd: start, firstByte: end, end: end}
}

// recordFixture records, over three shards: create 1000 and 2000 µs (ok);
// read 1500, 1500 µs (ok) and 2000 µs (HTTP 500); update one request
// without a response (timeout); one attempt that never connected.
func recordFixture(r *recorder) {
	t0 := time.Unix(1000, 0)
	r.shardFor(0).record(opCreate, response(t0, 1000), t0, "", r.highestUS)
	r.shardFor(1).record(opCreate, response(t0, 2000), t0, "", r.highestUS)
	r.shardFor(2).record(opRead, response(t0, 1500), t0, "", r.highestUS)
	r.shardFor(0).record(opRead, response(t0, 1500), t0, "", r.highestUS)
	r.shardFor(1).record(opRead, response(t0, 2000), t0, "http_500", r.highestUS)
	r.shardFor(2).record(opUpdate, nil, t0, "timeout", r.highestUS)
	r.shardFor(1).connectError("refused")
}

func TestRecorderMeasurement(t *testing.T) {
	t.Parallel()
	r := newRecorder(3, testOps, time.Minute, false)
	recordFixture(r)
	m := r.measurement(2*time.Second, 3, 1)

	want := results.Measurement{
		// 6 requests (the attempt that did not connect is not one) in 2 s.
		Requests: 6, RPS: 3, ErrorRate: 2.0 / 6,
		// 1000, 1500, 1500, 2000, 2000 µs: mean 1600; p50 the 3rd, p75 the 4th.
		LatencyMS: results.Latency{Avg: 1.6, Min: 1, P50: 1.5, P75: 2, P90: 2, P95: 2, P99: 2, Max: 2},
		Ops: map[string]results.OpStats{
			"create": {Requests: 2, RPS: 1, ErrorRate: 0,
				LatencyMS: results.Latency{Avg: 1.5, Min: 1, P50: 1, P75: 2, P90: 2, P95: 2, P99: 2, Max: 2}},
			// mean 5000/3 = 1666.7 µs, rounded to the µs.
			"read": {Requests: 3, RPS: 1.5, ErrorRate: 1.0 / 3,
				LatencyMS: results.Latency{Avg: 1.667, Min: 1.5, P50: 1.5, P75: 1.5, P90: 2, P95: 2, P99: 2, Max: 2}},
			"update": {Requests: 1, RPS: 0.5, ErrorRate: 1},
		},
		Errors:            map[string]int64{"http_500": 1, "timeout": 1},
		ConnectErrors:     1,
		ConnectErrorKinds: map[string]int64{"refused": 1},
		Iterations:        3, IterationsPerS: 1.5, DroppedIterations: 1, DurationS: 2,
	}
	// 2 failed requests and 1 failed connect out of 7 attempts.
	if m.ChecksPassRate == nil || *m.ChecksPassRate != 1-3.0/7 {
		t.Errorf("checks pass rate %v, want %v", m.ChecksPassRate, 1-3.0/7)
	}
	if m.Breakdown == nil || m.Breakdown.Waiting.Max != 2 || m.Breakdown.Sending.Max != 0 {
		t.Errorf("breakdown %+v, want waiting up to 2 ms and no sending time", m.Breakdown)
	}
	m.ChecksPassRate, m.Breakdown = nil, nil
	if !reflect.DeepEqual(m, want) {
		t.Errorf("measurement\n got %+v\nwant %+v", m, want)
	}
}

// TestRecorderNoTime: a phase that measured no time has no rates (not
// +Inf), and one without requests has no error rate (not NaN).
func TestRecorderNoTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                   string
		elapsed                time.Duration
		record                 bool
		rps, itPerS, errorRate float64
	}{
		{"no time", 0, true, 0, 0, 2.0 / 6},
		{"no requests", time.Second, false, 0, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRecorder(3, testOps, time.Minute, false)
			if tc.record {
				recordFixture(r)
			}
			m := r.measurement(tc.elapsed, 3, 0)
			if m.RPS != tc.rps || m.IterationsPerS != tc.itPerS || m.ErrorRate != tc.errorRate {
				t.Errorf("rps %v iterations/s %v error rate %v, want %v, %v and %v",
					m.RPS, m.IterationsPerS, m.ErrorRate, tc.rps, tc.itPerS, tc.errorRate)
			}
		})
	}
}

// TestSamplerSeries pins the per-second series: each take sums the
// shards' windows since the last take and starts them afresh.
func TestSamplerSeries(t *testing.T) {
	t.Parallel()
	r := newRecorder(3, testOps, time.Minute, true)
	s := newSampler(r)
	recordFixture(r)
	t0 := time.Unix(2000, 0)
	var got []results.Interval
	got = append(got, s.take(1))
	r.shardFor(2).record(opDelete, response(t0, 1200), t0, "", r.highestUS)
	got = append(got, s.take(2))
	got = append(got, s.take(3.001))
	want := []results.Interval{
		// p99 of 1000, 1500, 1500, 2000, 2000 µs (the timeout has no latency).
		{T: 1, Requests: 6, Errors: 2, ConnectErrors: 1, P99MS: 2},
		{T: 2, Requests: 1, P99MS: 1.2},
		{T: 3.001},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("intervals\n got %+v\nwant %+v", got, want)
	}
}
