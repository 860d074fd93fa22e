package k6

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// Ending a run early. When the runner closes LoadRequest.Stop (its
// steady-state rule has measured enough), k6 is stopped through its REST
// API, the only way k6 v2.2.0 offers from outside besides a signal:
// PATCH /v1/status with "stopped": true aborts the test run
// (api/v1/status_routes.go: execution.AbortTestRun, exit code 103). The
// VUs are interrupted mid-iteration, the requests in flight are dropped
// uncounted, and `k6 run` still writes its summary export, which it does
// in a deferred step whatever the run's error (internal/cmd/run.go).
// Pausing first is no way around the abort: only the externally-controlled
// executor can be paused once it has started.
//
// The summary's rates are counts over the test-run duration as k6 reads
// it when it writes the summary (lib.ExecutionState.
// GetCurrentTestRunDuration). A run that ends by itself is marked ended
// once its last iteration finishes; an aborted one never is
// (execution.Scheduler.Run skips MarkEnded), so its duration runs on
// through the wind-down and the summary's own making. With sweep's
// --quiet that was 2 to 8 ms past the stop in six runs on the 2-core
// reference machine; a plain `k6 run` drawing its progress bar took 0.2
// to 0.3 s. So just before the PATCH the stop reads k6's own clock from
// the same API (a counter's count over its rate is the test-run duration
// at that moment), and the measurement's duration and rates are taken
// over the phase up to the stop (see overPhase), however long k6 takes to
// wind down.

// exitStoppedByAPI is k6's exit code for a run stopped from its REST API
// (exitcodes.ScriptStoppedFromRESTAPI).
const exitStoppedByAPI = 103

// stopBody is the JSON:API document that stops a run (api/v1/status.go).
const stopBody = `{"data":{"type":"status","id":"default","attributes":{"stopped":true}}}`

// stopped says whether and when sweep stopped a k6 run.
type stopped struct {
	// Done is true once k6 accepted the stop.
	Done bool
	// AtS is the test-run duration (k6's clock) when it stopped; 0 when
	// it could not be read.
	AtS float64
}

// watchStop stops the k6 run whose REST API is at addr once stop is
// closed. The returned func ends the watch and says what it did; with a
// nil stop there is nothing to watch. A stop already under way when the
// watch ends is waited for, not cut short: k6 may exit on the PATCH it is
// answering, and a stop cut off before its answer was read would make
// sweep's own stop look like someone else's (exit 103 without a stop).
// It is bounded by the API client's timeout and by ctx.
func watchStop(ctx context.Context, addr string, stop <-chan struct{}) func() stopped {
	if stop == nil {
		return func() stopped { return stopped{} }
	}
	quit := make(chan struct{})
	result := make(chan stopped, 1)
	go func() {
		select {
		case <-stop:
			result <- stopRun(ctx, addr)
		case <-quit:
			result <- stopped{}
		case <-ctx.Done():
			result <- stopped{}
		}
	}()
	return func() stopped {
		close(quit)
		return <-result
	}
}

// stopRun reads k6's test-run duration and stops the run. A k6 that no
// longer answers (it just ended by itself) was not stopped.
func stopRun(ctx context.Context, addr string) stopped {
	api := newPoller(addr, nil)
	reqs, readErr := api.sample(ctx, "http_reqs")
	read := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, "http://"+addr+"/v1/status", strings.NewReader(stopBody))
	if err != nil {
		return stopped{}
	}
	resp, err := api.client.Do(req)
	if err != nil {
		return stopped{}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return stopped{}
	}
	s := stopped{Done: true}
	if readErr == nil && reqs["rate"] > 0 {
		// The abort takes effect while k6 handles the PATCH.
		s.AtS = reqs["count"]/reqs["rate"] + time.Since(read).Seconds()
	}
	return s
}

// overPhase sets m's duration to the phase's length up to the stop and
// every rate to its count over that length, when the summary's own
// duration runs past it (see the note at the top of this file): only for
// a run the stop aborted (runErr, k6's exit, is 103). A run that ended by
// itself, a stop accepted just as it did, has a duration of its own.
func (s stopped) overPhase(m *results.Measurement, runErr error) {
	if !s.Done || exitCode(runErr) != exitStoppedByAPI || s.AtS <= 0 || s.AtS >= m.DurationS {
		return
	}
	m.DurationS = s.AtS
	m.RPS = float64(m.Requests) / s.AtS
	m.IterationsPerS = float64(m.Iterations) / s.AtS
	for op, st := range m.Ops {
		st.RPS = float64(st.Requests) / s.AtS
		m.Ops[op] = st
	}
}

// result says whether an exit of k6 carries a measurement: success,
// crossed thresholds, or the abort sweep asked for.
func (s stopped) result(runErr error) bool {
	code := exitCode(runErr)
	return runErr == nil || code == exitThresholds || (s.Done && code == exitStoppedByAPI)
}
