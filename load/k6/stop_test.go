package k6

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// fakeStatusAPI is k6's REST API as far as a stop needs it: http_reqs at
// count 1000 and rate 200/s (5 s of test run), and PATCH /v1/status,
// counted in patched as it arrives and answered after answerAfter (k6
// aborts the run, and may exit, while it handles the PATCH).
func fakeStatusAPI(t *testing.T, patched *atomic.Int32, answerAfter time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/metrics/http_reqs":
			_, _ = w.Write([]byte(apiMetric("http_reqs", "counter", `{"count":1000,"rate":200}`)))
		case r.Method == http.MethodPatch && r.URL.Path == "/v1/status":
			body, _ := io.ReadAll(r.Body)
			if !strings.Contains(string(body), `"stopped":true`) {
				t.Errorf("PATCH body %s does not stop the run", body)
			}
			patched.Add(1)
			time.Sleep(answerAfter)
			_, _ = w.Write([]byte(`{"data":{"type":"status","id":"default","attributes":{"stopped":true}}}`))
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestWatchStop ends the watch while the PATCH is still unanswered, as
// when k6 exits (and sweep's Wait returns) on the stop it is handling: the
// stop is waited for, not cut short and taken for someone else's. CI
// caught the cut (Done false) when the watch cancelled its request.
func TestWatchStop(t *testing.T) {
	t.Parallel()
	var patched atomic.Int32
	const answerAfter = 150 * time.Millisecond
	addr := strings.TrimPrefix(fakeStatusAPI(t, &patched, answerAfter).URL, "http://")

	stop := make(chan struct{})
	end := watchStop(t.Context(), addr, stop)
	close(stop)
	for patched.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	got := end()
	// k6's clock read just before the stop: count over rate, 5 s, plus
	// the PATCH's round trip, which here includes the answer's delay.
	if !got.Done || got.AtS < 5+answerAfter.Seconds() || got.AtS > 5.5 {
		t.Errorf("stopped %+v, want done at 5.15 s and a few ms", got)
	}

	if got := watchStop(t.Context(), addr, make(chan struct{}))(); got.Done || patched.Load() != 1 {
		t.Errorf("a watch ended without a stop gave %+v and %d PATCHes, want nothing", got, patched.Load())
	}
	if got := watchStop(t.Context(), addr, nil)(); got.Done {
		t.Errorf("no stop channel: %+v", got)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	closed := make(chan struct{})
	close(closed)
	if got := watchStop(t.Context(), strings.TrimPrefix(gone.URL, "http://"), closed)(); got.Done {
		t.Errorf("a k6 that no longer answers was taken as stopped: %+v", got)
	}
}

// exit returns the error of a process that exited with code.
func exit(t *testing.T, code int) error {
	t.Helper()
	err := exec.Command("sh", "-c", fmt.Sprintf("exit %d", code)).Run()
	if exitCode(err) != code {
		t.Fatalf("sh exit %d gave %v", code, err)
	}
	return err
}

// TestClassifyStopped reads the real export k6 v2.2.0 wrote for a run of
// the bundled script stopped through its REST API (exit 103): a result
// when sweep stopped it, with the duration and every rate over the phase
// up to the stop; an error when it did not.
func TestClassifyStopped(t *testing.T) {
	t.Parallel()
	path := abs(t, "summary-export-stopped.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := ParseSummary(data)
	if err != nil {
		t.Fatal(err)
	}
	at := raw.DurationS - 0.5
	m, err := classify(t.Context(), exit(t, exitStoppedByAPI), "", path, time.Minute, stopped{Done: true, AtS: at})
	if err != nil {
		t.Fatalf("a run sweep stopped: %v", err)
	}
	if m.Requests != raw.Requests || m.Iterations != raw.Iterations || m.DurationS != at {
		t.Errorf("stopped run: %d requests, %d iterations over %.3f s; want %d, %d over %.3f s",
			m.Requests, m.Iterations, m.DurationS, raw.Requests, raw.Iterations, at)
	}
	if m.RPS != float64(m.Requests)/at || m.IterationsPerS != float64(m.Iterations)/at {
		t.Errorf("rates %.3f rps, %.3f iterations/s, want counts over %.3f s", m.RPS, m.IterationsPerS, at)
	}
	for op, s := range m.Ops {
		if s.RPS != float64(s.Requests)/at || math.Abs(s.RPS-raw.Ops[op].RPS*raw.DurationS/at) > 1e-6 {
			t.Errorf("%s: %.3f rps for %d requests over %.3f s", op, s.RPS, s.Requests, at)
		}
	}
	if _, err := classify(t.Context(), exit(t, exitStoppedByAPI), "stopped from REST API", path, time.Minute, stopped{}); err == nil ||
		!strings.Contains(err.Error(), "stopped from the REST API (exit 103)") {
		t.Errorf("a run stopped by someone else: %v, want k6's exit as an error", err)
	}
	// A stop read later than the summary's own duration (k6 ended by
	// itself first) leaves the summary's figures.
	if m, _ := classify(t.Context(), nil, "", path, time.Minute, stopped{Done: true, AtS: raw.DurationS + 1}); m.DurationS != raw.DurationS {
		t.Errorf("duration %.3f s, want the summary's %.3f s", m.DurationS, raw.DurationS)
	}
	// A stop k6 accepted as it ended by itself (exit 0): the summary's
	// duration is the run's own, not cut at the stop's reading.
	if m, _ := classify(t.Context(), nil, "", path, time.Minute, stopped{Done: true, AtS: raw.DurationS - 1}); m.DurationS != raw.DurationS {
		t.Errorf("a run that ended by itself: duration %.3f s, want the summary's %.3f s", m.DurationS, raw.DurationS)
	}
}

// TestRealK6StopsEarly closes Stop on the third interval of a 1 min run
// of the bundled script: k6 stops through its REST API, still writes its
// summary, and Run returns the measurement without an error, over the
// phase up to the stop (the summary's own rates run on past it).
func TestRealK6StopsEarly(t *testing.T) {
	bin := testenv.K6(t)
	srv := httptest.NewServer((&memFHIR{delay: time.Millisecond}).handler())
	defer srv.Close()
	stop := make(chan struct{})
	var intervals []results.Interval
	var stoppedAt time.Time
	req := sweep.LoadRequest{
		BaseURL: srv.URL, Load: results.LoadInfo{Driver: "k6", Model: "closed", VUs: 4},
		Duration: time.Minute, Dir: t.TempDir(), Stop: stop,
		Interval: func(iv results.Interval) {
			if intervals = append(intervals, iv); len(intervals) == 3 {
				stoppedAt = time.Now()
				close(stop)
			}
		},
	}
	m, err := New(Options{Binary: bin}).Run(context.WithoutCancel(t.Context()), req)
	if err != nil {
		t.Fatalf("a stopped run is a result: %v", err)
	}
	took := time.Since(stoppedAt)
	data, err := os.ReadFile(filepath.Join(req.Dir, SummaryFile))
	if err != nil {
		t.Fatalf("no summary after the stop: %v", err)
	}
	raw, err := ParseSummary(data)
	if err != nil {
		t.Fatal(err)
	}
	stopT := intervals[2].T
	t.Logf("stopped at %.3f s after k6 started; k6's run %.3f s to the stop, %.3f s in its summary; Run returned %s after the stop; "+
		"%d requests, %.0f rps (the summary's %.0f)", stopT, m.DurationS, raw.DurationS, took, m.Requests, m.RPS, raw.RPS)
	// Against the 57 s the run had left, with room for a loaded host.
	if took > 30*time.Second {
		t.Errorf("Run returned %s after the stop at %.1f s", took, stopT)
	}
	// The intervals count from k6's start, its test run a little later;
	// k6 stops while it answers the stop, which a loaded host may take
	// the time Run took after it to send.
	if m.DurationS <= 1 || m.DurationS > stopT+took.Seconds() || m.DurationS > raw.DurationS {
		t.Errorf("duration %.3f s, want k6's test run up to the stop at %.3f s (%s later at most), under the summary's %.3f s",
			m.DurationS, stopT, took, raw.DurationS)
	}
	if m.Requests != raw.Requests || m.Requests == 0 || m.RPS != float64(m.Requests)/m.DurationS || m.ErrorRate != 0 {
		t.Errorf("%d requests at %.1f rps over %.3f s, error rate %g", m.Requests, m.RPS, m.DurationS, m.ErrorRate)
	}
	if *k6Fixture {
		copyFile(t, filepath.Join(req.Dir, SummaryFile), filepath.Join("testdata", "summary-export-stopped.json"))
	}
}
