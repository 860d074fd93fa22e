package builtin

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
)

// maxKeptBody bounds a response body the driver keeps (for a capture, or
// an error's sample); bigger bodies are an error, not a memory problem.
const maxKeptBody = 8 << 20

// errStopped is returned by a request that the end of the phase cut short;
// such requests are not counted, and the iteration ends.
var errStopped = fmt.Errorf("phase stopped: %w", scenario.ErrAbort)

// target is the parsed base URL every virtual user talks to.
type target struct {
	addr   string      // host:port to dial
	host   string      // Host header
	prefix string      // base path without a trailing slash
	tls    *tls.Config // nil for plain http
}

func parseTarget(base string) (*target, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("parse base url: %w", err)
	}
	t := &target{host: u.Host, prefix: strings.TrimSuffix(u.EscapedPath(), "/")}
	port := u.Port()
	switch u.Scheme {
	case "http":
		port = cmpOr(port, "80")
	case "https":
		port = cmpOr(port, "443")
		t.tls = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	default:
		return nil, fmt.Errorf("base url %q: scheme must be http or https", base)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("base url %q: no host", base)
	}
	t.addr = net.JoinHostPort(u.Hostname(), port)
	return t, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// client is one virtual user's keep-alive HTTP/1.1 connection. It is used
// by one goroutine only; the stopper may close its connection from another
// one, which is why conn changes under the stopper's lock.
type client struct {
	t       *target
	timeout time.Duration
	ctx     context.Context // the phase: dialing stops with it
	stop    *stopper

	conn   net.Conn
	br     *bufio.Reader
	reused bool // conn has carried a request already
	wbuf   []byte
	tm     timing // the last request's phases
	sent   int64  // bytes written to the network, TLS included
}

// timing holds the phases of the last request that got a response. The
// per-request timestamps are the ones the client needs anyway (the
// deadline's and the end's) plus two, the end of the write and the first
// byte; dialling takes three more, once per connection.
type timing struct {
	connect, tls time.Duration // zero on a reused connection
	dialled      bool
	writeStart   time.Time
	writeEnd     time.Time
	firstByte    time.Time
	end          time.Time
}

func newClient(ctx context.Context, t *target, timeout time.Duration, stop *stopper) *client {
	c := &client{t: t, timeout: timeout, ctx: ctx, stop: stop, wbuf: make([]byte, 0, 1024)}
	stop.add(c)
	return c
}

// do sends req and reads its response into resp (package scenario's
// Doer contract: resp.Body holds the body when req.KeepBody or the status
// is 400 or above, resp.Headers the req.KeepHeaders found). A connection
// that the server closed while idle is redialled once, as net/http does.
// A request the end of the phase cut short returns errStopped.
func (c *client) do(req *scenario.Request, resp *scenario.Response) error {
	c.writeRequest(req)
	c.tm.connect, c.tm.tls, c.tm.dialled = 0, 0, false
	for attempt := 0; ; attempt++ {
		if c.stop.stopped.Load() {
			return errStopped
		}
		if c.conn == nil {
			if err := c.dial(); err != nil {
				if c.stopping() {
					return errStopped
				}
				return err
			}
		}
		reused := c.reused
		fresh, err := c.roundTrip(req, resp)
		if err == nil {
			return nil
		}
		c.close()
		if c.stopping() {
			return errStopped
		}
		if !reused && fresh && closedBeforeResponse(err) {
			return &connectError{kind: connectReset, err: err}
		}
		if !reused || !fresh || attempt > 0 {
			return err
		}
	}
}

// roundTrip writes c.wbuf and reads the response. fresh reports that the
// failure came before any byte of a response, so a retry is safe.
func (c *client) roundTrip(req *scenario.Request, resp *scenario.Response) (fresh bool, err error) {
	resp.Status, resp.Body, resp.Headers = 0, resp.Body[:0], resp.Headers[:0]
	c.tm.writeStart = time.Now()
	if err := c.conn.SetDeadline(c.tm.writeStart.Add(c.timeout)); err != nil {
		return true, fmt.Errorf("set deadline: %w", err)
	}
	if _, err := c.conn.Write(c.wbuf); err != nil {
		return true, fmt.Errorf("write request: %w", err)
	}
	c.tm.writeEnd = time.Now()
	c.reused = true
	// Peek blocks until the first byte of the response has arrived.
	if _, err := c.br.Peek(1); err != nil {
		return true, fmt.Errorf("read status line: %w", err)
	}
	c.tm.firstByte = time.Now()
	status, closeAfter, fresh, err := readResponse(c.br, req.KeepBody, &resp.Body, headerKeep{req.KeepHeaders, &resp.Headers})
	resp.Status = status
	if err != nil {
		return fresh, err
	}
	c.tm.end = time.Now()
	if closeAfter {
		c.close()
	}
	return false, nil
}

// stopping reports that the phase is over; it is for error paths, where
// a cancelled dial may be seen before the stopper has run.
func (c *client) stopping() bool {
	return c.stop.stopped.Load() || c.ctx.Err() != nil
}

// writeRequest builds req into c.wbuf: its path after the base URL's,
// the step's headers, and a body with its type and length.
func (c *client) writeRequest(req *scenario.Request) {
	w := append(c.wbuf[:0], req.Method...)
	w = append(w, ' ')
	w = append(w, c.t.prefix...)
	w = append(w, req.Path...)
	w = append(w, " HTTP/1.1\r\nHost: "...)
	w = append(w, c.t.host...)
	w = append(w, "\r\nUser-Agent: sweep-builtin\r\n"...)
	for _, h := range req.Headers {
		w = append(w, h.Name...)
		w = append(w, ": "...)
		w = append(w, h.Value...)
		w = append(w, "\r\n"...)
	}
	if req.ContentType != "" {
		w = append(w, "Content-Type: "...)
		w = append(w, req.ContentType...)
		w = append(w, "\r\n"...)
	}
	if req.Body != nil {
		w = append(w, "Content-Length: "...)
		w = strconv.AppendInt(w, int64(len(req.Body)), 10)
		w = append(w, "\r\n"...)
	}
	w = append(w, "\r\n"...)
	c.wbuf = append(w, req.Body...)
}

func (c *client) dial() error {
	d := net.Dialer{Timeout: c.timeout, KeepAlive: -1}
	began := time.Now()
	raw, err := d.DialContext(c.ctx, "tcp", c.t.addr)
	if err != nil {
		return dialFailed(fmt.Errorf("dial %s: %w", c.t.addr, err), false)
	}
	var conn net.Conn = countingConn{Conn: raw, sent: &c.sent}
	connected := time.Now()
	c.tm.connect, c.tm.tls, c.tm.dialled = connected.Sub(began), 0, true
	if c.t.tls != nil {
		tc := tls.Client(conn, c.t.tls)
		if err := tc.HandshakeContext(c.ctx); err != nil {
			conn.Close()
			return dialFailed(fmt.Errorf("tls handshake %s: %w", c.t.addr, err), true)
		}
		c.tm.tls = time.Since(connected)
		conn = tc
	}
	if !c.stop.attach(c, conn) {
		return errStopped
	}
	if c.br == nil {
		c.br = bufio.NewReaderSize(conn, 16<<10)
	} else {
		c.br.Reset(conn)
	}
	c.reused = false
	return nil
}

func (c *client) close() {
	if c.conn != nil {
		c.stop.attach(c, nil)
	}
}
