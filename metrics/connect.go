package metrics

// Connecting when the database may still be starting. The DSNs are
// checked once the services the target needs are up; a database without
// a healthcheck may run and not yet accept connections, so a connection
// that gets no answer is tried again for a while, but a server that
// answers and refuses (the password, the role, the database) is a wrong
// DSN at once.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Wait says how long Open and OpenPgBouncer keep trying a server that
// does not answer yet.
type Wait struct {
	// For bounds the tries; 0 tries once.
	For time.Duration
	// Notify, when set, is called once with the last error when the
	// server has not answered after NotifyAfter.
	Notify func(err error)
}

// NotifyAfter is how long a wait goes on before Wait.Notify is told.
const NotifyAfter = 5 * time.Second

// attemptTimeout bounds one connection attempt of a wait, retryEvery
// spaces the attempts, and queryTimeout bounds one query of the samplers
// outside their ticks (settings, limits, a reading after the phase),
// connecting first included.
const (
	attemptTimeout = 10 * time.Second
	retryEvery     = 250 * time.Millisecond
	queryTimeout   = 10 * time.Second
)

// ConnectError says why a DSN could not be used: the server answered and
// refused it (Refused: a wrong password, role or database, or pg_hba), or
// nothing answered at Host in time. Its text never holds the password.
type ConnectError struct {
	What    string // "db" or "pgbouncer"
	Host    string // host:port the DSN names
	Refused bool
	Wait    time.Duration // how long it was tried when nothing answered
	Err     error
}

func (e *ConnectError) Error() string {
	if e.Refused {
		return fmt.Sprintf("%s at %s refused the connection: %s", e.What, e.Host, cause(e.Err))
	}
	if e.Wait > 0 {
		return fmt.Sprintf("%s at %s did not answer within %s: %s", e.What, e.Host, e.Wait, cause(e.Err))
	}
	return fmt.Sprintf("%s at %s did not answer: %s", e.What, e.Host, cause(e.Err))
}

// cause is the part of a connection error that says what went wrong: the
// server's message, or the network's; pgx's whole text otherwise.
func cause(err error) string {
	var pg *pgconn.PgError
	var op *net.OpError
	var dns *net.DNSError
	switch {
	case errors.As(err, &pg):
		return pg.Error()
	case errors.As(err, &dns):
		return dns.Error()
	case errors.As(err, &op):
		return op.Error()
	}
	return err.Error()
}

// Unwrap returns the connection's error.
func (e *ConnectError) Unwrap() error { return e.Err }

// dialWaiting connects (c.mu held), trying again while the server does not
// answer until wait.For has passed. A refusal, or a host name that does
// not resolve, ends the wait at once.
func (c *lazyConn) dialWaiting(ctx context.Context, wait Wait) (*pgx.Conn, error) {
	start := time.Now()
	notified := false
	for {
		budget := attemptTimeout
		if wait.For > 0 {
			budget = min(budget, max(time.Second, wait.For-time.Since(start)))
		}
		actx, cancel := context.WithTimeout(ctx, budget)
		conn, err := c.connectLocked(actx)
		cancel()
		if err == nil {
			return conn, nil
		}
		cerr := &ConnectError{What: c.what, Host: net.JoinHostPort(c.cfg.Host, strconv.Itoa(int(c.cfg.Port))), Err: err}
		cerr.Refused = refused(err)
		if cerr.Refused || unresolved(err) || ctx.Err() != nil || time.Since(start) >= wait.For {
			cerr.Wait = wait.For
			return nil, cerr
		}
		if !notified && wait.Notify != nil && time.Since(start) >= NotifyAfter {
			wait.Notify(cerr)
			notified = true
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryEvery):
		}
	}
}

// refused reports whether the server answered err: any PostgreSQL error
// but "the database system is starting up" (57P03), which passes.
func refused(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code != "57P03"
}

// unresolved reports whether err says the host name does not exist.
func unresolved(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) && dns.IsNotFound
}
