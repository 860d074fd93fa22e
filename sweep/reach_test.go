package sweep

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// deadAddr is a loopback address where nothing listens.
func deadAddr(t *testing.T) string { return "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t)) }

func TestProbe(t *testing.T) {
	t.Parallel()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "broken", http.StatusInternalServerError)
	}))
	t.Cleanup(failing.Close)
	redirect := httptest.NewServer(http.RedirectHandler("http://"+deadAddr(t)+"/", http.StatusFound))
	t.Cleanup(redirect.Close)
	closer := testenv.Serve(t, func(net.Conn) {})
	silent := testenv.Serve(t, func(net.Conn) { time.Sleep(5 * time.Second) })
	selfSigned := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(selfSigned.Close)
	// Every probe but the silent server's gets an answer or an error at
	// once: its deadline is only a bound, long enough for a TLS handshake
	// under -race on a loaded host (500 ms was not). The silent server's
	// is what the case tests.
	for _, tc := range []struct {
		name, url, kind string
	}{
		{"an error status is an answer", failing.URL, ""},
		{"a redirect is an answer, not followed", redirect.URL, ""},
		{"nothing listens", "http://" + deadAddr(t), ConnectRefused},
		{"closed without an answer", "http://" + closer, ConnectReset},
		{"no answer in time", "http://" + silent, ConnectTimeout},
		{"name does not resolve", "http://nosuch.invalid:8080", ConnectDNS},
		{"a certificate nobody trusts", selfSigned.URL, ConnectTLS},
		{"https to a plain HTTP server", strings.Replace(failing.URL, "http:", "https:", 1), ConnectTLS},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			wait := 10 * time.Second
			if tc.kind == ConnectTimeout {
				wait = 500 * time.Millisecond
			}
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			err := Probe(ctx, tc.url)
			var pe *ProbeError
			switch {
			case tc.kind == "" && err != nil:
				t.Errorf("Probe(%s) = %v, want an answer", tc.url, err)
			case tc.kind != "" && (!errors.As(err, &pe) || pe.Kind != tc.kind || pe.URL != tc.url):
				t.Errorf("Probe(%s) = %#v, want a ProbeError of kind %s", tc.url, err, tc.kind)
			}
		})
	}
}

// eofConn reads io.EOF at once, holds every write until closed, and
// says when it is closed: a connection the server cut before the
// request went out.
type eofConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *eofConn) Read([]byte) (int, error) { return 0, io.EOF }
func (c *eofConn) Write([]byte) (int, error) {
	<-c.closed
	return 0, net.ErrClosed
}
func (c *eofConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// A connection the server closed before the request was written makes
// net/http say "server closed idle connection" instead of io.EOF; which
// of the two a real cut gives depends on a race (TestProbe's closer saw
// both), so both are reset. The trace holds the request back until the
// transport has seen the EOF and closed the connection, so this test
// always takes the first side of that race.
func TestConnectKindServerClosedBeforeRequest(t *testing.T) {
	t.Parallel()
	conn := &eofConn{closed: make(chan struct{})}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(context.Context, string, string) (net.Conn, error) { return conn, nil }}}
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { <-conn.closed }})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://example.invalid/", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = client.Do(req)
	if err == nil || !strings.Contains(err.Error(), serverClosedIdle) {
		t.Fatalf("GET over a connection cut before the request = %v, want net/http's %q", err, serverClosedIdle)
	}
	if got := ConnectKind(err); got != ConnectReset {
		t.Errorf("ConnectKind(%v) = %q, want %q", err, got, ConnectReset)
	}
	if got := ConnectKind(errors.New(serverClosedIdle + ", or so")); got != ConnectOther {
		t.Errorf("ConnectKind of a text that only begins like net/http's = %q, want %q", got, ConnectOther)
	}
}
