package sweep

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/pressure"
)

// littleDriver reports a closed phase of 3 users whose requests took
// latencyMS each, 600 requests over 2 s.
type littleDriver struct{ latencyMS float64 }

func (littleDriver) Name() string { return "little" }
func (d littleDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	return results.Measurement{Requests: 600, RPS: 300, DurationS: 2, LatencyMS: results.Latency{Avg: d.latencyMS, P99: 20}}, nil
}

// steppingPressure is a PSI file whose total grows by step per reading.
func steppingPressure(step time.Duration) func() (pressure.Reading, error) {
	var total time.Duration
	return func() (pressure.Reading, error) {
		total += step
		return pressure.Reading{Avg10: 12.5, Total: total}, nil
	}
}

func TestRunnerRecordsLittlesPressureAndDriverCPU(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		latencyMS float64
		ratio     float64
		pressure  func() (pressure.Reading, error)
		flagged   bool
	}{
		// 300 requests/s × 10 ms = 3 users busy: ratio 1.
		{"consistent", 10, 1, steppingPressure(time.Millisecond), false},
		// 300 × 5 ms = 1.5 of 3 users: half the time is missing.
		{"off", 5, 0.5, steppingPressure(time.Millisecond), true},
		{"no PSI", 10, 1, func() (pressure.Reading, error) {
			return pressure.Reading{}, pressure.ErrUnavailable
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
			r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: littleDriver{c.latencyMS}, Pressure: c.pressure}
			sum, err := r.Run(t.Context())
			if err != nil || len(sum.Records) != 1 {
				t.Fatalf("run: %v, %d records", err, len(sum.Records))
			}
			rec := sum.Records[0]
			if rec.LittlesRatio == nil || *rec.LittlesRatio != c.ratio || *rec.LittlesExpected != 1 {
				t.Errorf("littles %v / %v, want %v / 1", rec.LittlesRatio, rec.LittlesExpected, c.ratio)
			}
			flagged := strings.Contains(strings.Join(rec.Warnings, "\n"), "Little's law")
			if flagged != c.flagged {
				t.Errorf("warnings %q: flagged %v, want %v", rec.Warnings, flagged, c.flagged)
			}
			if rec.Driver == nil || rec.Driver.CPUPerRequestUS < 0 {
				t.Errorf("driver stats %+v", rec.Driver)
			}
			checkHost(t, rec.Host, c.pressure)
		})
	}
}

func checkHost(t *testing.T, h *results.HostStats, read func() (pressure.Reading, error)) {
	t.Helper()
	if _, err := read(); errors.Is(err, pressure.ErrUnavailable) {
		if h == nil || h.CPUPressure != nil || !strings.Contains(h.CPUPressureReason, "not available") {
			t.Errorf("host %+v: want no pressure with the reason", h)
		}
		return
	}
	if h == nil || h.CPUPressure == nil || h.CPUPressure.SomeAvg10 != 12.5 || h.CPUPressure.SomeShare <= 0 {
		t.Errorf("host %+v: want the pressure over the phase", h)
	}
}
