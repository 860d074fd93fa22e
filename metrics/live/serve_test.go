package live

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/metrics/live/livetest"
)

// TestServerServesUntilTheContextEnds: the metrics answer on Path while
// the context lives; once it is cancelled the port is closed.
func TestServerServesUntilTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	m := New()
	m.Begin(3, 0)
	s, err := Start(ctx, "127.0.0.1:0", m)
	if err != nil {
		t.Fatal(err)
	}
	if got := livetest.Series(livetest.Scrape(t, "http://"+s.Addr()+Path), "sweep_cells_planned"); got[""] != 3 {
		t.Errorf("sweep_cells_planned = %v, want 3", got)
	}
	cancel()
	if err := s.Close(); err != nil {
		t.Errorf("close after the context ended: %v", err)
	}
	if c, err := net.DialTimeout("tcp", s.Addr(), time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after the run's context ended", s.Addr())
	}
}

// TestServerRefusesBadAddresses: a malformed or taken address is an
// error from Start, before anything serves.
func TestServerRefusesBadAddresses(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() }) // after the parallel subtests
	for _, tc := range []struct{ name, addr, says string }{
		{"empty", "", "no address"},
		{"no port", "9464", "missing port"},
		{"bad port", "127.0.0.1:http-ish", "unknown port"},
		{"taken", taken.Addr().String(), "address already in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := Start(t.Context(), tc.addr, New())
			if err == nil {
				_ = s.Close()
				t.Fatalf("Start(%q) served on %s, want an error", tc.addr, s.Addr())
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Start(%q): %v, want it to say %q", tc.addr, err, tc.says)
			}
		})
	}
}

// TestServerCutsASilentClient: a client that connects and never sends
// its request headers is disconnected after the header timeout, so a
// stuck scraper cannot hold the server.
func TestServerCutsASilentClient(t *testing.T) {
	t.Parallel()
	s, err := Start(t.Context(), "127.0.0.1:0", New())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("GET /metrics HTTP/1.1\r\n")); err != nil { // and no more
		t.Fatal(err)
	}
	bound := readHeaderTimeout + 20*time.Second // a loaded host's stalls many times over
	_ = c.SetReadDeadline(time.Now().Add(bound))
	start := time.Now()
	_, err = io.ReadAll(c)
	if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept a silent client for %s (%v)", bound, err)
	}
	t.Logf("silent client cut after %.1f s", time.Since(start).Seconds())
}

// TestServerCloseSaysWhatFailed: Close returns what went wrong while it
// stopped the server (here the listener cannot be closed), not only the
// error that ended serving.
func TestServerCloseSaysWhatFailed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		closing error
	}{
		{"listener closes", nil},
		{"listener cannot close", errors.New("close tcp 127.0.0.1:9464: device busy")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ln := newListener(tc.closing)
			s := serve(t.Context(), ln, New())
			<-ln.accepting // serving
			for range 2 {  // a second Close says the same
				if err := s.Close(); !errors.Is(err, tc.closing) {
					t.Errorf("Close: %v, want %v", err, tc.closing)
				}
			}
		})
	}
}

// listener is a net.Listener that accepts nothing (accepting is closed
// once it is asked to) and whose Close returns closing, after it ends
// Accept.
type listener struct {
	closing               error
	accepting, closed     chan struct{}
	acceptOnce, closeOnce sync.Once
}

func newListener(closing error) *listener {
	return &listener{closing: closing, accepting: make(chan struct{}), closed: make(chan struct{})}
}

func (l *listener) Accept() (net.Conn, error) {
	l.acceptOnce.Do(func() { close(l.accepting) })
	<-l.closed
	return nil, net.ErrClosed
}

func (l *listener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.closing
}

func (l *listener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9464} }
