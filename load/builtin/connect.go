package builtin

// Connection-level failures. An attempt that never reached the target's
// HTTP server is not a request: it has no status and no latency, and a
// dead target would otherwise show as thousands of very fast failed
// "requests". The client reports such attempts as a connectError; the
// user counts them apart (Measurement.ConnectErrors) and backs off before
// its next attempt, so a target that is down gets a few connects a second
// per virtual user instead of a thousand (which used up loopback ports
// and broke the next recreate with "address already in use").

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// connectError is an attempt that failed to connect: the dial (or TLS
// handshake) failed, or a new connection was closed or reset before any
// byte of a response arrived. kind is one of the connect* kinds.
type connectError struct {
	kind string
	err  error
}

func (e *connectError) Error() string { return e.err.Error() }
func (e *connectError) Unwrap() error { return e.err }

// The kinds of Measurement.ConnectErrorKinds (see sweep.ConnectKind).
const (
	connectRefused = sweep.ConnectRefused
	connectDNS     = sweep.ConnectDNS
	connectTimeout = sweep.ConnectTimeout
	connectReset   = sweep.ConnectReset
	connectTLS     = sweep.ConnectTLS
	connectOther   = sweep.ConnectOther
)

// dialFailed wraps an error of dial as a connectError.
func dialFailed(err error, handshake bool) error {
	kind := sweep.ConnectKind(err)
	if handshake {
		kind = connectTLS
	}
	return &connectError{kind: kind, err: err}
}

// closedBeforeResponse reports whether err, on a connection just opened
// for this request with nothing read yet, means the far end closed or
// reset it: what a proxy in front of a dead target (docker-proxy on a
// published port) does. A timeout is not such a case: the target took
// the connection and was slow.
func closedBeforeResponse(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Backoff bounds of a virtual user after connection errors.
const (
	backoffFirst = 5 * time.Millisecond
	backoffMax   = time.Second
)

// backoff is one virtual user's wait after connection errors: it doubles
// from backoffFirst up to backoffMax with each failure in a row and starts
// again after an attempt that connected.
type backoff struct {
	next  time.Duration
	timer *time.Timer
}

// failed returns how long to wait after one more connection error.
func (b *backoff) failed() time.Duration {
	d := max(b.next, backoffFirst)
	b.next = min(2*d, backoffMax)
	return d
}

// connected forgets earlier failures.
func (b *backoff) connected() { b.next = 0 }

// wait sleeps for d or until ctx ends, whichever comes first.
func (b *backoff) wait(ctx context.Context, d time.Duration) {
	if b.timer == nil {
		b.timer = time.NewTimer(d)
	} else {
		b.timer.Reset(d)
	}
	select {
	case <-b.timer.C:
	case <-ctx.Done():
		b.timer.Stop()
	}
}

// countingConn counts the bytes written through it into *sent. It wraps
// the TCP connection itself (under TLS), so it counts what went onto the
// network. One goroutine writes; *sent is read after it has finished.
type countingConn struct {
	net.Conn
	sent *int64
}

func (c countingConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	*c.sent += int64(n)
	return n, err
}
