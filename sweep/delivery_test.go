package sweep

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

const testURL = "http://127.0.0.1:18080"

func TestCheckReachable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		m       results.Measurement
		want    string // "" for reachable
		warning string
	}{
		{"no connect errors", results.Measurement{Requests: 1000}, "", ""},
		{"a few refused", results.Measurement{Requests: 990, ConnectErrors: 10, ConnectErrorKinds: map[string]int64{"refused": 10}}, "",
			"10 of 1000 attempts (1.0%) failed to connect to " + testURL + " (refused 10); they are not in the requests or the error rate"},
		{"exactly half", results.Measurement{Requests: 50, ConnectErrors: 50}, "",
			"50 of 100 attempts (50.0%) failed to connect to " + testURL + "; they are not in the requests or the error rate"},
		{"just over half", results.Measurement{Requests: 49, ConnectErrors: 51, ConnectErrorKinds: map[string]int64{"refused": 51}},
			"target unreachable: 51 of 100 attempts to connect to " + testURL + " failed (refused 51)", ""},
		{"dead", results.Measurement{ConnectErrors: 18, ConnectErrorKinds: map[string]int64{"reset": 3, "refused": 12, "dns": 3}},
			"target unreachable: 18 of 18 attempts to connect to " + testURL + " failed (refused 12, dns 3, reset 3)", ""},
		{"k6 without kinds", results.Measurement{Requests: 2, ConnectErrors: 40},
			"target unreachable: 40 of 42 attempts to connect to " + testURL + " failed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			warning, err := CheckReachable(testURL, tt.m)
			if warning != tt.warning {
				t.Errorf("warning %q\nwant    %q", warning, tt.warning)
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("err = %v, want reachable", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, ErrUnreachable)):
				t.Errorf("err = %v\nwant  %s", err, tt.want)
			}
		})
	}
}

func TestCheckDelivery(t *testing.T) {
	t.Parallel()
	network := func(rx int64) *results.Delivery {
		return &results.Delivery{Method: results.DeliveryNetwork, ReceivedBytes: rx, ReceivedPackets: 7}
	}
	host := func(isTarget bool, cpuS float64, listeners ...string) *results.Delivery {
		return &results.Delivery{Method: results.DeliveryHostSocket, ListenerIsTarget: isTarget, TargetCPUS: cpuS, Listeners: listeners}
	}
	tests := []struct {
		name      string
		sent      int64
		requests  int64
		got       *results.Delivery
		wantRatio float64
		method    string
		err       string
		warning   string
	}{
		{"healthy: rx over sent", 1_000_000, 2000, network(1_730_000), 1.73, "network", "", ""},
		{"exactly half", 1_000_000, 2000, network(500_000), 0.5, "network", "", ""},
		{"another target took the load", 4_000_000, 8000, network(3_000), 0.00075, "network",
			"load did not reach the target: app received 3000 bytes while the driver sent 4000000 to " + testURL +
				" (0.0%, under 50%; is the URL the target's address?)", ""},
		{"just under half", 1_000_000, 2000, network(499_999), 0.499999, "network",
			"load did not reach the target: app received 499999 bytes while the driver sent 1000000 to " + testURL +
				" (49.9%, under 50%; is the URL the target's address?)", ""},
		{"driver counts no bytes", 0, 2000, network(900), 0, "none", "",
			"delivery to the target not proven: the driver did not report the bytes it sent"},
		{"no monitor", 1000, 2, nil, 0, "none", "", "delivery to the target not proven: nothing watched the target"},
		{"monitor could not see", 1000, 2, &results.Delivery{Method: results.DeliveryNone, Note: "the engine is remote"},
			0, "none", "", "delivery to the target not proven: the engine is remote"},
		{"host: target's socket, CPU used", 50_000, 1000, host(true, 0.25, "pid 812 demoapp (target)"), 0, "host-socket", "", ""},
		{"host: exactly 1µs of CPU a request", 50_000, 1000, host(true, 0.001, "pid 812 demoapp (target)"), 0, "host-socket", "", ""},
		{"host: another process holds the port", 50_000, 1000, host(false, 0.25, "pid 99 nginx"), 0, "host-socket",
			"load did not reach the target: " + testURL + ": its port is held by pid 99 nginx, not by app (is the URL the target's address?)", ""},
		{"host: nobody listens", 50_000, 1000, host(false, 0.25), 0, "host-socket",
			"load did not reach the target: " + testURL + ": nothing listens on its port, not by app (is the URL the target's address?)", ""},
		{"host: target did not run", 50_000, 1000, host(true, 0.0009, "pid 812 demoapp (target)"), 0, "host-socket",
			"load did not reach the target: app holds the socket of " + testURL + " but used 0.000900 s of CPU for 1000 requests (under 1µs each)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := results.Record{Measurement: results.Measurement{BytesSent: tt.sent, Requests: tt.requests}, Delivery: tt.got}
			warning, err := CheckDelivery(testURL, "app", &rec)
			d := rec.Delivery
			if d.SentBytes != tt.sent || d.Ratio != tt.wantRatio || d.Method != tt.method {
				t.Errorf("delivery %+v, want sent %d, ratio %g, method %s", d, tt.sent, tt.wantRatio, tt.method)
			}
			if (err == nil) != (tt.err == "") || err != nil && (err.Error() != tt.err || !errors.Is(err, ErrNotDelivered)) {
				t.Errorf("err = %v\nwant  %s", err, tt.err)
			}
			if warning != tt.warning {
				t.Errorf("warning %q, want %q", warning, tt.warning)
			}
		})
	}
}

// deliveryMonitor reports what the target received, as the real monitor
// does from the engine's counters.
type deliveryMonitor struct{ received int64 }

func (m *deliveryMonitor) Start(context.Context, Cell, string) error { return nil }
func (m *deliveryMonitor) Stop(_ context.Context, rec *results.Record, _ string, _ []results.Interval) error {
	rec.Delivery = &results.Delivery{Method: results.DeliveryNetwork, ReceivedBytes: m.received}
	return nil
}

// measuredDriver returns m for every measured phase.
type measuredDriver struct{ m results.Measurement }

func (d measuredDriver) Name() string { return "fake" }
func (d measuredDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	return d.m, nil
}

// TestRunnerFailsUndeliveredLoad: the runner applies both checks after
// the measured phase and keeps the figures in the record.
func TestRunnerFailsUndeliveredLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		m        results.Measurement
		received int64
		status   results.Status
		reason   string
		warning  string
	}{
		{"delivered", results.Measurement{Requests: 100, BytesSent: 20_000}, 31_000, results.StatusOK, "", ""},
		{"elsewhere", results.Measurement{Requests: 100, BytesSent: 20_000}, 1_200, results.StatusFailed,
			"load did not reach the target: app received 1200 bytes while the driver sent 20000 to " + answering.URL + " (6.0%, under 50%; is the URL the target's address?)", ""},
		{"unreachable", results.Measurement{Requests: 1, ConnectErrors: 9, BytesSent: 90, ConnectErrorKinds: map[string]int64{"refused": 9}}, 0,
			results.StatusFailed, "target unreachable: 9 of 10 attempts to connect to " + answering.URL + " failed (refused 9)", ""},
		{"driver without a byte count", results.Measurement{Requests: 100}, 31_000, results.StatusOK, "",
			"delivery to the target not proven: the driver did not report the bytes it sent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
			dir := t.TempDir()
			r := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{}, Driver: measuredDriver{tt.m}, Monitor: &deliveryMonitor{tt.received}}
			sum, err := r.Run(t.Context())
			if err != nil || len(sum.Records) != 1 {
				t.Fatalf("run: %v, %d records", err, len(sum.Records))
			}
			cell := spec.Cells()[0]
			rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cell.ID, 1), results.ResultFile))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Status != tt.status || rec.Reason != tt.reason {
				t.Errorf("status %s reason %q\nwant   %s reason %q", rec.Status, rec.Reason, tt.status, tt.reason)
			}
			var want []string
			if tt.warning != "" {
				want = []string{tt.warning}
			}
			if !slices.Equal(rec.Warnings, want) {
				t.Errorf("warnings %q, want %q", rec.Warnings, tt.warning)
			}
			if d := rec.Delivery; d == nil || d.SentBytes != tt.m.BytesSent || d.ReceivedBytes != tt.received {
				t.Errorf("delivery %+v, want sent %d and received %d recorded", d, tt.m.BytesSent, tt.received)
			}
		})
	}
}
