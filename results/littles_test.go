package results

import (
	"math"
	"strings"
	"testing"
)

func TestLittles(t *testing.T) {
	t.Parallel()
	closed := LoadInfo{Driver: "builtin", Model: "closed", VUs: 10}
	cases := []struct {
		name           string
		load           LoadInfo
		m              Measurement
		ratio, expects float64
		ok             bool
	}{
		// 10 users each always in a 5 ms request: 2000 requests/s for 10 s.
		{"consistent", closed, Measurement{Requests: 20000, DurationS: 10, RPS: 2000, LatencyMS: Latency{Avg: 5}}, 1, 1, true},
		// Half the requests lost from the count.
		{"lost requests", closed, Measurement{Requests: 10000, DurationS: 10, RPS: 1000, LatencyMS: Latency{Avg: 5}}, 0.5, 1, true},
		// The duration, not the driver's own rate, is the time base.
		{"duration wins over rate", closed, Measurement{Requests: 20000, DurationS: 20, RPS: 2000, LatencyMS: Latency{Avg: 5}}, 0.5, 1, true},
		{"rate without duration", closed, Measurement{Requests: 20000, RPS: 2000, LatencyMS: Latency{Avg: 5}}, 1, 1, true},
		// 4 requests of 4 ms in a 20 ms iteration: requests fill 80 % of a
		// user's time, and the ratio should be 0.8.
		{"iterations", closed, Measurement{Requests: 20000, DurationS: 10, LatencyMS: Latency{Avg: 4},
			Iterations: 5000, IterationMS: &Latency{Avg: 20}}, 0.8, 0.8, true},
		{"open model", LoadInfo{Model: "open", Rate: 100, VUs: 100}, Measurement{Requests: 1000, DurationS: 10, LatencyMS: Latency{Avg: 5}}, 0, 0, false},
		{"no requests", closed, Measurement{DurationS: 10}, 0, 0, false},
		{"no time base", closed, Measurement{Requests: 5, LatencyMS: Latency{Avg: 5}}, 0, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ratio, expected, ok := Littles(c.load, c.m)
			if ok != c.ok || math.Abs(ratio-c.ratio) > 1e-9 || math.Abs(expected-c.expects) > 1e-9 {
				t.Errorf("Littles = %v, %v, %v; want %v, %v, %v", ratio, expected, ok, c.ratio, c.expects, c.ok)
			}
		})
	}
}

func TestLittlesOff(t *testing.T) {
	t.Parallel()
	rec := func(reqs int64, iterations int64) Record {
		r := Record{Load: LoadInfo{Model: "closed", VUs: 10}, Measurement: Measurement{
			Requests: reqs, DurationS: 10, LatencyMS: Latency{Avg: 5}}}
		if iterations > 0 {
			r.Iterations, r.IterationMS = iterations, &Latency{Avg: 20}
		}
		r.SetLittles()
		return r
	}
	cases := []struct {
		name string
		rec  Record
		off  bool
	}{
		{"exact", rec(20000, 0), false},
		{"9 % low is within", rec(18200, 0), false},
		{"11 % low is off", rec(17800, 0), true},
		{"11 % high is off", rec(22200, 0), true},
		// Requests fill 80 s of the 100 s of iterations by the driver's
		// figures, and the ratio says the same: not off, though far from 1.
		{"low ratio the iterations explain", rec(16000, 5000), false},
		// The iteration figures fill 120 % of the users' time: a time base
		// or count is wrong.
		{"iterations beyond the users' time", rec(20000, 6000), true},
		{"open model has none", Record{Load: LoadInfo{Model: "open"}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.rec.LittlesOff()
			if (got != "") != c.off {
				t.Errorf("LittlesOff = %q, want off=%v (ratio %v expected %v)", got, c.off, deref(c.rec.LittlesRatio), deref(c.rec.LittlesExpected))
			}
			if c.off && !strings.Contains(got, "Little's law") {
				t.Errorf("flag %q does not name Little's law", got)
			}
		})
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
