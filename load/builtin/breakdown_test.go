package builtin

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// span is an accepted range of a phase statistic, in milliseconds.
type span struct{ lo, hi float64 }

func (s span) check(t *testing.T, what string, got float64) {
	t.Helper()
	if got < s.lo || got > s.hi {
		t.Errorf("%s = %.3f ms, want between %g and %g", what, got, s.lo, s.hi)
	}
}

func TestBreakdownPhases(t *testing.T) {
	t.Parallel()
	const vus = 3
	// The server's pause, which lands in one phase: that phase's p50 is
	// at least about the pause, the others' under half of it. The pause
	// is long so that these bounds tell the phases apart, not time the
	// host (a loaded 2-core host stretched a 50 ms pause's waiting p50 to
	// 123 ms, and CI saw 400 ms stalls).
	const pause = 200 * time.Millisecond
	p := float64(pause.Milliseconds())
	held, not := span{p, 5 * p}, span{0, p / 2}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		// The p50 of waiting and receiving.
		waiting, receiving span
		// newConns is the expected NewConnections; -1 means one per
		// request.
		newConns int64
	}{
		{"first byte late", func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(pause)
			w.Write([]byte("ok"))
		}, held, not, vus},
		{"body streamed slowly", func(w http.ResponseWriter, _ *http.Request) {
			w.Write([]byte("first half "))
			w.(http.Flusher).Flush()
			time.Sleep(pause)
			w.Write([]byte("second half"))
		}, not, span{p / 2, 5 * p}, vus}, // the first byte may be read late, so under the pause
		{"keep-alive", func(http.ResponseWriter, *http.Request) {}, not, not, vus},
		{"connection close", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Connection", "close")
		}, not, not, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			m := runLoad(t, Options{Scenario: ScenarioGet},
				sweep.LoadRequest{BaseURL: srv.URL, Load: closed(vus), Duration: time.Second})
			b := m.Breakdown
			if b == nil || m.ErrorRate != 0 {
				t.Fatalf("breakdown %v, errors %v: want a breakdown and no errors", b, m.Errors)
			}
			tt.waiting.check(t, "waiting p50", b.Waiting.P50)
			tt.receiving.check(t, "receiving p50", b.Receiving.P50)
			checkConnections(t, b, m.Requests, tt.newConns)
			if b.TLS.Max != 0 {
				t.Errorf("tls max = %g ms on plain http, want 0", b.TLS.Max)
			}
			// The phases fit in the request's latency, up to the
			// histograms' resolution: an HDR histogram of sigFigs 3 puts
			// a value v in a bucket at most v/1024 wide and its mean
			// takes each bucket's middle, so the phases' means and the
			// latency's are each off by up to half their bucket (together
			// at most latency/1024), each average also rounded to 1 µs.
			tolerance := m.LatencyMS.Avg/1024 + 0.01
			if sum := b.Connect.Avg + b.Sending.Avg + b.Waiting.Avg + b.Receiving.Avg; sum > m.LatencyMS.Avg+tolerance {
				t.Errorf("phases add up to %.3f ms on average, more than the latency %.3f ms (+%.3f ms of the histograms' resolution)",
					sum, m.LatencyMS.Avg, tolerance)
			}
		})
	}
}

// checkConnections checks the dial count and that only dialled requests
// paid for connect. want -1 means every request dialled.
func checkConnections(t *testing.T, b *results.Breakdown, requests, want int64) {
	t.Helper()
	if want < 0 {
		want = requests
	}
	if b.NewConnections != want {
		t.Errorf("new connections = %d, want %d (%d requests)", b.NewConnections, want, requests)
	}
	if b.Connect.Max <= 0 {
		t.Errorf("connect max = %g ms, want > 0", b.Connect.Max)
	}
	reused := 1 - float64(b.NewConnections)/float64(requests)
	if reused > 0.5 && b.Connect.P50 != 0 {
		t.Errorf("connect p50 = %g ms with %.0f %% reused connections, want 0", b.Connect.P50, 100*reused)
	}
	if reused == 0 && b.Connect.Min <= 0 {
		t.Errorf("connect min = %g ms although every request dialled", b.Connect.Min)
	}
}

// TestBreakdownTLS: the handshake is timed on the request that dials and
// is 0 on the ones that reuse the connection.
func TestBreakdownTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	tg, err := parseTarget(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	tg.tls.RootCAs, tg.tls.ServerName = roots, "example.com" // the test certificate's name
	var stop stopper
	defer stop.stop()
	c := newClient(t.Context(), tg, time.Second, &stop)
	rec := newRecorder(1, testOps, time.Minute, false)
	const requests = 4
	req := scenario.Request{Method: "GET", Path: []byte("/")}
	var resp scenario.Response
	for range requests {
		start := time.Now()
		if err := c.do(&req, &resp); err != nil || resp.Status != 200 {
			t.Fatalf("status %d, err %v", resp.Status, err)
		}
		rec.shardFor(0).record(opRead, &c.tm, start, "", rec.highestUS)
	}
	b := rec.measurement(time.Second, requests, 0).Breakdown
	if b == nil || b.NewConnections != 1 {
		t.Fatalf("breakdown %+v: want one new connection", b)
	}
	if b.TLS.Max <= 0 || b.TLS.P50 != 0 || b.Connect.Max <= 0 || b.Connect.P50 != 0 {
		t.Errorf("tls %+v, connect %+v: want the handshake and dial on the first request only", b.TLS, b.Connect)
	}
}
