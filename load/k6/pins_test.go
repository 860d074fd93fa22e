package k6

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// TestFollowsRateTolerance: a script's arrival rate follows the asked one
// within 0.1 % of it (at least 0.001/s); a timeUnit of zero is no rate.
func TestFollowsRateTolerance(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	num := func(x float64) *float64 { return &x }
	open := results.LoadInfo{Model: "open", Rate: 100}
	d := 30 * time.Second
	scenario := func(rate float64, unit string) map[string]Scenario {
		return map[string]Scenario{"default": {Executor: "constant-arrival-rate", Duration: str("30s"), Rate: num(rate), TimeUnit: str(unit)}}
	}
	for _, c := range []struct {
		name string
		sc   map[string]Scenario
		want bool
	}{
		{"the same rate", scenario(100, "1s"), true},
		{"0.05 % off", scenario(100050, "1000s"), true},
		{"0.2 % off", scenario(100200, "1000s"), false},
		{"a timeUnit of zero", scenario(100, "0s"), false},
	} {
		if got := follows(c.sc, open, d); got != c.want {
			t.Errorf("%s: follows = %v, want %v", c.name, got, c.want)
		}
	}
	if perS, ok := (Scenario{Rate: num(5), TimeUnit: str("0s")}).ratePerSecond(); ok {
		t.Errorf("timeUnit 0s: %v per second, want no rate", perS)
	}
}

// TestOpenConfigLowestRate: 0.001 iterations/s is the lowest rate k6 can
// be given (1 per 1000 s); below it is refused.
func TestOpenConfigLowestRate(t *testing.T) {
	t.Parallel()
	if _, err := openConfig(results.LoadInfo{Model: "open", Rate: 0.001}, time.Minute); err != nil {
		t.Errorf("rate 0.001: %v", err)
	}
	if _, err := openConfig(results.LoadInfo{Model: "open", Rate: 1}, time.Minute); err != nil {
		t.Errorf("rate 1: %v", err)
	}
	if _, err := openConfig(results.LoadInfo{Model: "open", Rate: 0.0004}, time.Minute); err == nil {
		t.Error("rate 0.0004: accepted")
	}
}

// TestNewGracePeriod: k6 gets 20 s to stop unless told otherwise.
func TestNewGracePeriod(t *testing.T) {
	t.Parallel()
	if g := New(Options{}).opts.GracePeriod; g != 20*time.Second {
		t.Errorf("default grace period %s, want 20s", g)
	}
	if g := New(Options{GracePeriod: time.Second}).opts.GracePeriod; g != time.Second {
		t.Errorf("grace period %s, want the 1s given", g)
	}
}

// TestPollerGivesUpOnASilentAPI: a k6 API that takes the connection and
// never answers costs a poll its 800 ms timeout, not the rest of the run
// (here a minute): 20 s leaves a loaded host its stalls many times over.
func TestPollerGivesUpOnASilentAPI(t *testing.T) {
	t.Parallel()
	silent := make(chan struct{})
	addr := testenv.Serve(t, func(c net.Conn) { <-silent })
	t.Cleanup(func() { close(silent) })
	p := newPoller(addr, func(iv results.Interval) { t.Errorf("emitted %+v from a silent API", iv) })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	start := time.Now()
	p.poll(ctx, 1)
	if took := time.Since(start); took < 800*time.Millisecond || took > 20*time.Second {
		t.Errorf("a poll of a silent API took %s, want its 800 ms timeout", took)
	}
}

// TestRunEmitsTheTail: a run whose API was never polled hands its whole
// count to the runner as one last interval; a failed run hands nothing.
func TestRunEmitsTheTail(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, body string
		want       int
	}{
		{"ok", `sleep 0.3; cp "` + abs(t, "summary-export.json") + `" "$out"; exit 0`, 1},
		{"script exception", `sleep 0.3; echo 'level=error msg="ReferenceError"' >&2; exit 107`, 0},
	} {
		dir := t.TempDir()
		var got []results.Interval
		req := loadRequest(dir, false)
		req.Interval = func(iv results.Interval) { got = append(got, iv) }
		m, _ := New(Options{Binary: fakeK6(t, dir, c.body)}).Run(t.Context(), req)
		if len(got) != c.want || (c.want == 1 && (got[0].Requests != m.Requests || got[0].T <= 0)) {
			t.Errorf("%s: intervals %+v, want %d carrying all %d requests", c.name, got, c.want, m.Requests)
		}
	}
}

// TestExitCode: an exit status gives its code; anything else (k6 did not
// start, or a signal ended it) is -1, never a code k6 could exit with.
func TestExitCode(t *testing.T) {
	t.Parallel()
	if c := exitCode(errors.New("exec: \"k6\": executable file not found in $PATH")); c != -1 {
		t.Errorf("not started: %d, want -1", c)
	}
	if c := exitCode(nil); c != -1 {
		t.Errorf("nil: %d, want -1", c)
	}
	err := exec.Command("sh", "-c", "exit 99").Run()
	if c := exitCode(err); c != 99 {
		t.Errorf("exit 99: %d", c)
	}
}

// TestOverPhaseEdges: a stop read at no time, or at or after the end of
// k6's own run, or a run that was not aborted, leaves the summary's
// figures alone.
func TestOverPhaseEdges(t *testing.T) {
	t.Parallel()
	summary := results.Measurement{Requests: 100, DurationS: 10, RPS: 9.5}
	aborted := exit(t, exitStoppedByAPI)
	for _, s := range []stopped{{Done: true, AtS: 0}, {Done: true, AtS: 10}, {Done: true, AtS: 12}, {AtS: 5}} {
		m := summary
		s.overPhase(&m, aborted)
		if m.DurationS != 10 || m.RPS != 9.5 {
			t.Errorf("stop %+v: duration %v rps %v, want the summary's 10 and 9.5", s, m.DurationS, m.RPS)
		}
	}
	for _, runErr := range []error{nil, exit(t, exitThresholds)} {
		m := summary
		stopped{Done: true, AtS: 8}.overPhase(&m, runErr)
		if m.DurationS != 10 || m.RPS != 9.5 {
			t.Errorf("a run that ended by itself (%v): duration %v rps %v, want the summary's 10 and 9.5", runErr, m.DurationS, m.RPS)
		}
	}
	m := summary
	stopped{Done: true, AtS: 8}.overPhase(&m, aborted)
	if m.DurationS != 8 || m.RPS != 12.5 {
		t.Errorf("stop at 8 s: duration %v rps %v, want 8 and 12.5", m.DurationS, m.RPS)
	}
}

// TestRunSecondsAndAnswered: the run's length comes from the first counter
// with both a count and a rate; answered gives no rate without a length.
func TestRunSecondsAndAnswered(t *testing.T) {
	t.Parallel()
	m := func(v map[string]float64) metric { return metric{values: v} }
	for name, c := range map[string]struct {
		metrics map[string]metric
		want    float64
	}{
		"no requests counted": {map[string]metric{"http_reqs": m(map[string]float64{"count": 0, "rate": 5}),
			"iterations": m(map[string]float64{"count": 100, "rate": 10})}, 10},
		"no request rate": {map[string]metric{"http_reqs": m(map[string]float64{"count": 100, "rate": 0}),
			"iterations": m(map[string]float64{"count": 100, "rate": 10})}, 10},
		"nothing moved": {map[string]metric{"http_reqs": m(map[string]float64{"count": 0, "rate": 0})}, 0},
	} {
		if got := runSeconds(c.metrics); got != c.want {
			t.Errorf("%s: runSeconds = %v, want %v", name, got, c.want)
		}
	}
	metrics := map[string]metric{"http_reqs": m(map[string]float64{"count": 120, "rate": 12}),
		"http_req_failed": m(map[string]float64{"passes": 30}), connectErrors: m(map[string]float64{"count": 20})}
	if reqs, rps, errRate, connect := answered(metrics, "", 0); reqs != 100 || rps != 0 || errRate != 0.1 || connect != 20 {
		t.Errorf("answered over no length: %d %v %v %d, want 100 requests, no rate, 10 %% errors, 20 connect errors", reqs, rps, errRate, connect)
	}
	if _, rps, _, _ := answered(metrics, "", 10); rps != 10 {
		t.Errorf("answered over 10 s: %v rps, want 10", rps)
	}
}
