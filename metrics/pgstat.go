package metrics

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// DB is the PostgreSQL sampler's single connection. It is shared by the
// sampling loop and Reset, one at a time, and is reopened on demand after
// the database went away. The role needs pg_read_all_stats (or to be the
// application's role) to see the state of other sessions.
type DB struct {
	lazyConn

	// Database is the sampled database, current_database() of the DSN.
	Database string
	// MaxConnections is the server's max_connections.
	MaxConnections int
}

// connectTimeout bounds one connection attempt, so a tick never stalls.
const connectTimeout = 900 * time.Millisecond

// Open connects, trying again while the server does not answer for as
// long as wait says, and reads the database name and max_connections. A
// wrong or unreachable DSN is a *ConnectError whose text shows the host
// and the DSN with its password redacted.
func Open(ctx context.Context, dsn string, wait Wait) (*DB, error) {
	d := &DB{}
	if err := d.parse("db", dsn); err != nil {
		return nil, err
	}
	d.cfg.RuntimeParams["application_name"] = "sweep-sampler"
	d.mu.Lock()
	defer d.mu.Unlock()
	conn, err := d.dialWaiting(ctx, wait)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	const q = `SELECT current_database(), current_setting('max_connections')::int`
	if err := conn.QueryRow(ctx, q).Scan(&d.Database, &d.MaxConnections); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("read db settings at %s: %w", d.redacted, err)
	}
	return d, nil
}

// lazyConn is the one connection a sampler keeps (DB, PgBouncer): dialled
// on demand, and again after it was lost. Callers hold mu around its use.
type lazyConn struct {
	what     string // "db" or "pgbouncer", in error texts
	cfg      *pgx.ConnConfig
	redacted string // the DSN with its password hidden, for error texts

	mu   sync.Mutex
	conn *pgx.Conn // nil while disconnected
}

// parse reads dsn into cfg; its error shows the DSN redacted.
func (c *lazyConn) parse(what, dsn string) error {
	c.what, c.redacted = what, RedactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("parse %s dsn %s: %w", what, c.redacted, err)
	}
	c.cfg = cfg
	return nil
}

// connectLocked returns the open connection, dialling when there is none.
func (c *lazyConn) connectLocked(ctx context.Context) (*pgx.Conn, error) {
	if c.conn != nil && !c.conn.IsClosed() {
		return c.conn, nil
	}
	conn, err := pgx.ConnectConfig(ctx, c.cfg)
	if err != nil {
		c.conn = nil
		return nil, fmt.Errorf("connect to %s %s: %w", c.what, c.redacted, err)
	}
	c.conn = conn
	return conn, nil
}

// close closes the connection, if there is one.
func (c *lazyConn) close(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close(ctx)
	c.conn = nil
	return err
}

// Reset runs a reset script (several statements are fine) through the
// simple protocol, e.g. TRUNCATE of the application's tables between
// cells.
func (d *DB) Reset(ctx context.Context, sqlText string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	conn, err := d.connectLocked(ctx)
	if err != nil {
		return fmt.Errorf("db reset: %w", err)
	}
	if _, err := conn.PgConn().Exec(ctx, sqlText).ReadAll(); err != nil {
		return fmt.Errorf("db reset: %w", err)
	}
	return nil
}

// Close closes the connection.
func (d *DB) Close(ctx context.Context) error { return d.close(ctx) }

// pgReading is one answer of sampleQuery.
type pgReading struct {
	at                                     time.Time
	total, active, idle, idleInTx, waiting int
	serverTotal                            int
	commits, rollbacks, deadlocks, temp    int64
}

// sampleQuery reads sessions and counters in one round trip. Sessions are
// client backends (no autovacuum or parallel workers); the sampler's own
// backend is left out of the database's counts but kept in serverTotal,
// the connections that count against max_connections. So are pg_isready's
// (application_name pg_isready): the usual healthcheck of a compose
// stack's database connects to it for a moment every interval, and a
// reading that fell in that moment counted one session more than the
// app held (the JVM example's fixed pool of 4 read as a peak of 5, a
// fresh machine's CI, 2026-12-05; a tight pg_isready loop beside this
// query was seen in 73 of 3000 readings, in none with it left out).
const sampleQuery = `
WITH a AS (
  SELECT state, wait_event_type,
         datname = current_database() AND pid <> pg_backend_pid()
           AND application_name IS DISTINCT FROM 'pg_isready' AS mine
  FROM pg_stat_activity WHERE backend_type = 'client backend')
SELECT count(*) FILTER (WHERE mine),
       count(*) FILTER (WHERE mine AND state = 'active'),
       count(*) FILTER (WHERE mine AND state = 'idle'),
       count(*) FILTER (WHERE mine AND state LIKE 'idle in transaction%'),
       count(*) FILTER (WHERE mine AND wait_event_type = 'Lock'),
       count(*),
       d.xact_commit, d.xact_rollback, d.deadlocks, d.temp_bytes
FROM a CROSS JOIN pg_stat_database d
WHERE d.datname = current_database()
GROUP BY d.xact_commit, d.xact_rollback, d.deadlocks, d.temp_bytes`

// read takes one reading within a tick, reconnecting first when the
// connection was lost. A failed query drops a broken connection so the
// next tick dials again.
func (d *DB) read(ctx context.Context) (pgReading, error) {
	// A reading under way finishes on its own deadline rather than being
	// cancelled with ctx, which would cost the connection.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), connectTimeout)
	defer cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	conn, err := d.connectLocked(ctx)
	if err != nil {
		return pgReading{}, err
	}
	r := pgReading{}
	err = conn.QueryRow(ctx, sampleQuery).Scan(&r.total, &r.active, &r.idle, &r.idleInTx,
		&r.waiting, &r.serverTotal, &r.commits, &r.rollbacks, &r.deadlocks, &r.temp)
	r.at = time.Now()
	if err != nil {
		if conn.IsClosed() || ctx.Err() != nil {
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 100*time.Millisecond)
			defer cancel()
			_ = conn.Close(closeCtx)
			d.conn = nil
		}
		return pgReading{}, fmt.Errorf("sample db: %w", err)
	}
	return r, nil
}
