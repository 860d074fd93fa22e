package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// deadURL is a loopback URL where nobody listens.
func deadURL(t *testing.T) string {
	return "http://127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)) + "/"
}

// maxAttempts is the most attempts one virtual user can make in d against
// a target that never connects, however fast each attempt fails: one
// before each wait of the backoff, and one after the last.
func maxAttempts(d time.Duration) int64 {
	var n int64
	var b backoff
	for waited := time.Duration(0); waited < d; waited += b.failed() {
		n++
	}
	return n + 1
}

// TestConnectErrorsAreNotRequests: attempts that never reach an HTTP
// server count as connect errors, in no request figure, and each virtual
// user backs off between them.
func TestConnectErrorsAreNotRequests(t *testing.T) {
	t.Parallel()
	closer := func(t *testing.T) string {
		t.Helper()
		return serveRaw(t, func(net.Conn) {}) // accepts, then closes at once: docker-proxy before a dead target
	}
	tests := []struct {
		name string
		url  func(t *testing.T) string
		kind string
	}{
		{"refused", deadURL, connectRefused},
		{"closed before any response byte", closer, connectReset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const vus, d = 2, 600 * time.Millisecond
			var ivs []results.Interval
			m := runLoad(t, Options{}, sweep.LoadRequest{BaseURL: tt.url(t), Load: closed(vus), Duration: d,
				Interval: func(iv results.Interval) { ivs = append(ivs, iv) }})
			if m.Requests != 0 || m.RPS != 0 || m.ErrorRate != 0 || len(m.Errors) != 0 || m.LatencyMS != (results.Latency{}) {
				t.Errorf("requests %d, rps %g, error rate %g, errors %v, latency %+v: want no request at all",
					m.Requests, m.RPS, m.ErrorRate, m.Errors, m.LatencyMS)
			}
			if hi := vus * maxAttempts(d); m.ConnectErrors < vus || m.ConnectErrors > hi {
				t.Errorf("connect errors = %d, want %d..%d with the backoff", m.ConnectErrors, vus, hi)
			}
			if len(m.ConnectErrorKinds) != 1 || m.ConnectErrorKinds[tt.kind] != m.ConnectErrors {
				t.Errorf("kinds %v, want all %d %q", m.ConnectErrorKinds, m.ConnectErrors, tt.kind)
			}
			if m.ChecksPassRate == nil || *m.ChecksPassRate != 0 {
				t.Errorf("checks pass rate %v, want 0", m.ChecksPassRate)
			}
			var inIntervals int64
			for _, iv := range ivs {
				inIntervals += iv.ConnectErrors
				if iv.Requests != 0 || iv.Errors != 0 {
					t.Errorf("interval %+v counts requests", iv)
				}
			}
			if inIntervals != m.ConnectErrors {
				t.Errorf("intervals hold %d connect errors, the phase %d", inIntervals, m.ConnectErrors)
			}
		})
	}
}

// TestBackoffEndsWithThePhase: a user waiting out its longest backoff
// does not hold the phase's end or a cancel. It runs on the clock of a
// synctest bubble, which moves only while every goroutine in it waits,
// so a loaded host cannot stretch it: the eight waits of 5 ms doubling
// end at 1275 ms, where the first 1 s wait begins, and Run must return
// at the end or the cancel 25 ms into it, not at the wait's end.
func TestBackoffEndsWithThePhase(t *testing.T) {
	t.Parallel()
	url := deadURL(t)
	const at = 1300 * time.Millisecond
	for _, tc := range []struct {
		name     string
		duration time.Duration
		cancel   bool
	}{{"the end", at, false}, {"a cancel", time.Minute, true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tc.cancel {
					time.AfterFunc(at, cancel)
				}
				began := time.Now()
				m, err := New(Options{}).Run(ctx, sweep.LoadRequest{BaseURL: url, Load: closed(1), Duration: tc.duration})
				if took := time.Since(began); took != at {
					t.Errorf("Run returned %s after start, want at %s", took, at)
				}
				if errors.Is(err, context.Canceled) != tc.cancel || m.ConnectErrors != 9 {
					t.Errorf("err %v, %d connect errors: want 9, cancelled %v", err, m.ConnectErrors, tc.cancel)
				}
			})
		})
	}
}

func TestBackoffDoubles(t *testing.T) {
	t.Parallel()
	var b backoff
	var got []string
	for range 10 {
		got = append(got, b.failed().String())
	}
	b.connected()
	got = append(got, b.failed().String())
	want := "5ms 10ms 20ms 40ms 80ms 160ms 320ms 640ms 1s 1s 5ms"
	if strings.Join(got, " ") != want {
		t.Errorf("waits %s, want %s", strings.Join(got, " "), want)
	}
}

func TestDialFailedKinds(t *testing.T) {
	t.Parallel()
	op := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Err: err} }
	tests := []struct {
		err       error
		handshake bool
		kind      string
	}{
		{op(os.NewSyscallError("connect", syscall.ECONNREFUSED)), false, connectRefused},
		{op(&net.DNSError{Err: "no such host", Name: "nosuch.invalid", IsNotFound: true}), false, connectDNS},
		{op(os.ErrDeadlineExceeded), false, connectTimeout},
		{context.DeadlineExceeded, false, connectTimeout},
		{op(os.NewSyscallError("connect", syscall.ECONNRESET)), false, connectReset},
		{op(os.NewSyscallError("connect", syscall.EHOSTUNREACH)), false, connectOther},
		{io.EOF, true, connectTLS},
	}
	for _, tt := range tests {
		err := dialFailed(fmt.Errorf("dial x: %w", tt.err), tt.handshake)
		ce, ok := errors.AsType[*connectError](err)
		if !ok || ce.kind != tt.kind || !errors.Is(err, tt.err) {
			t.Errorf("dialFailed(%v) = %v (kind %q), want kind %q wrapping it", tt.err, err, ce.kind, tt.kind)
		}
	}
}

// TestBytesSentAreWhatTheServerRead: BytesSent is every byte the users
// wrote, counted exactly as the server reads them.
func TestBytesSentAreWhatTheServerRead(t *testing.T) {
	t.Parallel()
	const resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	var read atomic.Int64
	url := serveRaw(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		for {
			n, err := c.Read(buf)
			read.Add(int64(n))
			if err != nil {
				return
			}
			if _, err := c.Write([]byte(resp)); err != nil {
				return
			}
		}
	})
	m := runLoad(t, Options{Scenario: ScenarioGet}, sweep.LoadRequest{BaseURL: url, Load: closed(3), Duration: 300 * time.Millisecond})
	// The server may still be reading what was written last.
	for deadline := time.Now().Add(2 * time.Second); read.Load() != m.BytesSent && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	one := int64(len(fmt.Sprintf("GET / HTTP/1.1\r\nHost: %s\r\nUser-Agent: sweep-builtin\r\n\r\n",
		strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))))
	// Requests cut short by the end were sent but are not counted.
	if m.BytesSent != read.Load() || m.BytesSent%one != 0 || m.BytesSent < m.Requests*one || m.BytesSent > (m.Requests+3)*one {
		t.Errorf("bytes sent %d, server read %d, %d requests of %d bytes", m.BytesSent, read.Load(), m.Requests, one)
	}
}
