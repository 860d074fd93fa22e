package sweep

import (
	"errors"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// secs is a second's interval each, with requests answered in it.
func secs(answered ...int64) []results.Interval {
	out := make([]results.Interval, len(answered))
	for i, n := range answered {
		out[i] = results.Interval{T: float64(i + 1), Requests: n}
	}
	return out
}

// TestCheckAnswering: a phase whose last seconds answered nothing, far
// longer than its requests and iterations took, fails (the frozen target:
// 640 answers in the first second of 8, none after, 70 ms the longest);
// a slow target's silences within its latency, a sparse open model's
// within its arrivals, failures in the last seconds and a driver without
// intervals do not.
func TestCheckAnswering(t *testing.T) {
	closed := results.LoadInfo{Model: "closed", VUs: 4}
	m := func(maxMS float64) results.Measurement {
		return results.Measurement{Requests: 640, LatencyMS: results.Latency{P99: 66, Max: maxMS}}
	}
	failing := secs(100, 100, 0, 0, 0)
	failing[4].Errors = 3
	for _, c := range []struct {
		name      string
		load      results.LoadInfo
		m         results.Measurement
		intervals []results.Interval
		stalled   string
	}{
		{"frozen a second in", closed, m(70), secs(640, 0, 0, 0, 0, 0, 0, 0), "nothing was answered in the last 7.0 s of the 8.0 s measured phase"},
		{"answering to the end", closed, m(70), secs(100, 100, 100, 100), ""},
		{"two silent seconds", closed, m(70), secs(100, 100, 0, 0), ""},
		{"a slow target", closed, m(3000), secs(2, 0, 0, 0, 0, 2, 0, 0, 0), ""},
		{"slow, then stopped", closed, m(3000), secs(2, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0), "nothing was answered in the last 7.0 s"},
		{"long iterations", closed, func() results.Measurement {
			r := m(70)
			r.IterationMS = &results.Latency{Max: 5000}
			return r
		}(), secs(4, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0), ""},
		{"a sparse open model", results.LoadInfo{Model: "open", Rate: 0.5}, m(70), secs(1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0), ""},
		{"failing at the end", closed, m(70), failing, ""},
		{"no intervals", closed, m(70), nil, ""},
		{"nothing at all", closed, results.Measurement{}, secs(0, 0, 0, 0), ""},
	} {
		err := checkAnswering(c.load, c.m, c.intervals)
		switch {
		case c.stalled == "" && err != nil:
			t.Errorf("%s: %v; want no verdict", c.name, err)
		case c.stalled != "" && (!errors.Is(err, ErrStalled) || !strings.Contains(err.Error(), c.stalled)):
			t.Errorf("%s: %v; want ErrStalled saying %q", c.name, err, c.stalled)
		}
	}
}
