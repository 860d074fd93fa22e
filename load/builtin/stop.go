package builtin

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// stopper ends a phase promptly: it raises a flag that every request checks
// and closes every virtual user's connection, so requests blocked in a read
// return at once instead of at their timeout.
type stopper struct {
	stopped atomic.Bool
	mu      sync.Mutex // guards clients and every client's conn
	clients []*client
}

func (s *stopper) add(c *client) {
	s.mu.Lock()
	s.clients = append(s.clients, c)
	s.mu.Unlock()
}

// attach makes conn the client's connection, closing the previous one.
// After stop it closes conn instead and reports false.
func (s *stopper) attach(c *client, conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.conn != nil {
		c.conn.Close()
	}
	c.conn = nil
	if s.stopped.Load() {
		if conn != nil {
			conn.Close()
		}
		return false
	}
	c.conn = conn
	return true
}

// stop ends the phase; it is safe to call more than once.
func (s *stopper) stop() {
	s.stopped.Store(true)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.clients {
		if c.conn != nil {
			c.conn.Close()
		}
	}
}

// Error classes of Measurement.Errors besides "http_<status>".
const (
	classTimeout    = "timeout"
	classConnection = "connection"
	classOther      = "other"
)

// classify names the class of a request that got no whole response: err
// from the client (a status the step did not expect is package
// scenario's http_<status>). Attempts that failed to connect are not
// requests and never come here (see connectError); "connection" is a
// connection that broke once the target had answered on it.
func classify(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &ne) && ne.Timeout():
		return classTimeout
	case errors.Is(err, errProtocol):
		return classOther
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return classConnection
	}
	return classOther
}
