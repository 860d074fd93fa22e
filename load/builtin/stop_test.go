package builtin

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestStopEndsThePhaseNormally closes req.Stop from the second interval
// of a 20 s phase, as the runner's steady-state rule does: the phase ends
// at once without an error, its duration is the real one and its rates
// are over that duration, and the server saw the requests counted (plus
// at most one cut short per user).
func TestStopEndsThePhaseNormally(t *testing.T) {
	t.Parallel()
	for _, load := range []results.LoadInfo{closed(4), {Model: "open", Rate: 400, VUs: 4, MaxVUs: 8}} {
		t.Run(load.Model, func(t *testing.T) {
			t.Parallel()
			var served atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
				served.Add(1)
				time.Sleep(time.Millisecond)
			}))
			defer srv.Close()
			stop := make(chan struct{})
			var mu sync.Mutex
			var got []results.Interval
			var stoppedAt time.Time
			req := sweep.LoadRequest{BaseURL: srv.URL, Load: load, Duration: 20 * time.Second, Stop: stop,
				Interval: func(iv results.Interval) {
					mu.Lock()
					defer mu.Unlock()
					if got = append(got, iv); len(got) == 2 {
						stoppedAt = time.Now()
						close(stop)
					}
				}}
			m := runLoad(t, Options{Scenario: ScenarioGet}, req)
			returned := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 2 {
				t.Fatalf("%d intervals, want the 2 whole seconds before the stop: %+v", len(got), got)
			}
			// "At once" against the 20 s the phase would otherwise run, with
			// room for a loaded host's stalls (CI saw 400 ms ones) many times
			// over; the requests after the stop (below) hold it to less.
			if lag := returned.Sub(stoppedAt); lag > 10*time.Second {
				t.Errorf("Run returned %s after the stop", lag)
			}
			if m.DurationS < got[1].T || m.DurationS > got[1].T+10 {
				t.Errorf("duration %.3f s, want the real length: just past the stop at %.3f s", m.DurationS, got[1].T)
			}
			if want := float64(m.Requests) / m.DurationS; m.RPS != want {
				t.Errorf("rps %v, want requests over the real duration %v", m.RPS, want)
			}
			if want := float64(m.Iterations) / m.DurationS; m.IterationsPerS != want {
				t.Errorf("iterations/s %v, want %v", m.IterationsPerS, want)
			}
			inIntervals := got[0].Requests + got[1].Requests
			if tail := m.Requests - inIntervals; tail < 0 || float64(tail) > 0.1*m.RPS+float64(max(load.VUs, load.MaxVUs)) {
				t.Errorf("%d requests, %d in the intervals: the %d after the stop are more than its moment holds",
					m.Requests, inIntervals, tail)
			}
			if s := served.Load(); s < m.Requests || s > m.Requests+int64(max(load.VUs, load.MaxVUs)) {
				t.Errorf("server saw %d requests, the driver counted %d", s, m.Requests)
			}
			if m.ErrorRate != 0 || len(m.Errors) != 0 {
				t.Errorf("errors %v after a stop: requests cut short must not count", m.Errors)
			}
		})
	}
}
