package k6

import (
	"context"
	"errors"
	"flag"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

var k6Fixture = flag.Bool("k6fixture", false,
	"TestRealK6: write the closed run's real export to testdata/summary-export-ops.json (then run -update)")

// TestRealK6 runs the real k6 with the bundled script against memFHIR for
// 2 s per case. It skips when k6 is not on PATH.
func TestRealK6(t *testing.T) {
	bin := testenv.K6(t)
	srv := httptest.NewServer((&memFHIR{}).handler())
	defer srv.Close()
	failing := httptest.NewServer((&memFHIR{failCreate: true}).handler())
	defer failing.Close()
	tests := []struct {
		name  string
		url   string
		load  results.LoadInfo
		check func(*testing.T, results.Measurement, []results.Interval)
	}{
		{"closed", srv.URL, results.LoadInfo{Driver: "k6", Model: "closed", VUs: 2}, checkCRUD},
		// 12.5/s is 12500 per 1000s for k6, whose rate is an integer.
		{"open fractional rate", srv.URL, results.LoadInfo{Driver: "k6", Model: "open", Rate: 12.5, VUs: 2, MaxVUs: 10},
			func(t *testing.T, m results.Measurement, ivs []results.Interval) {
				checkCRUD(t, m, ivs)
				// k6 starts one at t=0 and often one more at the very end; on
				// a busy machine a few are dropped while k6 adds a VU.
				if got, want := m.Iterations+m.DroppedIterations, 12.5*2; math.Abs(float64(got)-want) > 2 {
					t.Errorf("%d iterations + %d dropped, want about %g", m.Iterations, m.DroppedIterations, want)
				}
			}},
		{"creates fail", failing.URL, results.LoadInfo{Driver: "k6", Model: "closed", VUs: 1}, checkCreatesFail},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var intervals []results.Interval
			req := sweep.LoadRequest{
				BaseURL: tc.url, Load: tc.load, Duration: 2 * time.Second, Dir: t.TempDir(),
				Interval: func(iv results.Interval) { intervals = append(intervals, iv) },
			}
			m, err := New(Options{Binary: bin}).Run(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d requests, %d iterations, %.0f rps, p99 %.2f ms, %d intervals",
				m.Requests, m.Iterations, m.RPS, m.LatencyMS.P99, len(intervals))
			tc.check(t, m, intervals)
			if tc.name == "closed" && *k6Fixture {
				copyFile(t, filepath.Join(req.Dir, SummaryFile), filepath.Join("testdata", "summary-export-ops.json"))
			}
		})
	}
}

// checkCRUD checks a run whose every request succeeded.
func checkCRUD(t *testing.T, m results.Measurement, intervals []results.Interval) {
	t.Helper()
	// gracefulStop lets every iteration finish: 9 types × 4 operations each.
	if m.Requests == 0 || m.Requests != m.Iterations*36 {
		t.Errorf("requests %d for %d iterations of 36 requests", m.Requests, m.Iterations)
	}
	if m.ErrorRate != 0 || m.ChecksPassRate == nil || *m.ChecksPassRate != 1 {
		t.Errorf("error rate %g, checks %v; want 0 and 1", m.ErrorRate, m.ChecksPassRate)
	}
	if len(m.ThresholdsFailed) != 0 {
		t.Errorf("always-true op thresholds reported as crossed: %q", m.ThresholdsFailed)
	}
	var sum int64
	for _, op := range results.Operations {
		s, ok := m.Ops[op]
		if !ok || s.Requests == 0 || s.LatencyMS.P99 == 0 {
			t.Errorf("op %s: %+v", op, s)
		}
		sum += s.Requests
	}
	if sum != m.Requests {
		t.Errorf("ops add up to %d requests, total %d", sum, m.Requests)
	}
	if m.LatencyMS.P99 <= 0 || m.DurationS < 2 {
		t.Errorf("p99 %g ms, duration %g s", m.LatencyMS.P99, m.DurationS)
	}
	var polled int64
	for _, iv := range intervals {
		polled += iv.Requests
	}
	if len(intervals) == 0 || polled == 0 || polled > m.Requests || intervals[len(intervals)-1].T < 2 {
		t.Errorf("intervals %+v hold %d requests, total %d", intervals, polled, m.Requests)
	}
}

// checkCreatesFail: only creates ran. k6 still exports the read, update
// and delete sub-metrics (their thresholds name them) with count 0; they
// are left out, and their always-true thresholds are no result.
func checkCreatesFail(t *testing.T, m results.Measurement, intervals []results.Interval) {
	t.Helper()
	if _, ok := m.Ops["create"]; len(m.Ops) != 1 || !ok {
		t.Errorf("ops = %v, want create only", m.Ops)
	}
	if m.Requests == 0 || m.ErrorRate != 1 || m.Ops["create"].ErrorRate != 1 {
		t.Errorf("%d requests, error rate %g; want all failed", m.Requests, m.ErrorRate)
	}
	if m.ChecksPassRate == nil || *m.ChecksPassRate != 0 || len(m.ThresholdsFailed) != 0 {
		t.Errorf("checks %v, thresholds crossed %q", m.ChecksPassRate, m.ThresholdsFailed)
	}
	var errs int64
	for _, iv := range intervals {
		errs += iv.Errors
	}
	if errs == 0 || errs > m.Requests {
		t.Errorf("intervals count %d errors of %d failed requests", errs, m.Requests)
	}
}

// TestRealK6Cancel cancels a 1 min run once requests flow: k6 gets one
// SIGINT, stops within seconds, and still writes its summary export.
func TestRealK6Cancel(t *testing.T) {
	bin := testenv.K6(t)
	srv := httptest.NewServer((&memFHIR{}).handler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelled time.Time
	req := sweep.LoadRequest{
		BaseURL: srv.URL, Load: results.LoadInfo{Driver: "k6", Model: "closed", VUs: 2},
		Duration: time.Minute, Dir: t.TempDir(),
		Interval: func(iv results.Interval) {
			if iv.Requests > 0 && ctx.Err() == nil {
				cancelled = time.Now()
				cancel()
			}
		},
	}
	_, err := New(Options{Binary: bin}).Run(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want it to wrap context.Canceled", err)
	}
	// Stopped by the SIGINT, not killed at the end of the 20 s grace,
	// with room for a loaded host.
	if took := time.Since(cancelled); took > 15*time.Second {
		t.Errorf("cancelled run took %s after the cancel", took)
	}
	data, err := os.ReadFile(filepath.Join(req.Dir, SummaryFile))
	if err != nil {
		t.Fatalf("no summary after SIGINT: %v", err)
	}
	if m, err := ParseSummary(data); err != nil || m.Requests == 0 {
		t.Errorf("summary after SIGINT: %d requests, %v", m.Requests, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
