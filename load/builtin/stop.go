package builtin

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
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

// classify names the class of a failed request: err from the client, or a
// status the check did not accept. Attempts that failed to connect are
// not requests and never come here (see connectError); "connection" is a
// connection that broke once the target had answered on it.
func classify(status int, err error) string {
	if err == nil {
		return httpClass(status)
	}
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

// httpClasses caches the common status classes so the error path of a
// request does not allocate.
var httpClasses = func() map[int]string {
	m := make(map[int]string)
	for s := 100; s < 600; s++ {
		m[s] = "http_" + strconv.Itoa(s)
	}
	return m
}()

func httpClass(status int) string {
	if c, ok := httpClasses[status]; ok {
		return c
	}
	return "http_" + strconv.Itoa(status)
}
