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
	cfg      *pgx.ConnConfig
	redacted string

	mu   sync.Mutex
	conn *pgx.Conn // nil while disconnected

	// Database is the sampled database, current_database() of the DSN.
	Database string
	// MaxConnections is the server's max_connections.
	MaxConnections int
}

// connectTimeout bounds one connection attempt, so a tick never stalls.
const connectTimeout = 900 * time.Millisecond

// Open connects once and reads the database name and max_connections. A
// wrong or unreachable DSN is an error whose text shows the DSN with its
// password redacted.
func Open(ctx context.Context, dsn string) (*DB, error) {
	d := &DB{redacted: RedactDSN(dsn)}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse db dsn %s: %w", d.redacted, err)
	}
	cfg.RuntimeParams["application_name"] = "sweep-sampler"
	d.cfg = cfg
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	conn, err := d.connectLocked(ctx)
	if err != nil {
		return nil, err
	}
	const q = `SELECT current_database(), current_setting('max_connections')::int`
	if err := conn.QueryRow(ctx, q).Scan(&d.Database, &d.MaxConnections); err != nil {
		_ = conn.Close(ctx)
		return nil, fmt.Errorf("read db settings at %s: %w", d.redacted, err)
	}
	return d, nil
}

// connectLocked returns the open connection, dialling when there is none.
func (d *DB) connectLocked(ctx context.Context) (*pgx.Conn, error) {
	if d.conn != nil && !d.conn.IsClosed() {
		return d.conn, nil
	}
	conn, err := pgx.ConnectConfig(ctx, d.cfg)
	if err != nil {
		d.conn = nil
		return nil, fmt.Errorf("connect to db %s: %w", d.redacted, err)
	}
	d.conn = conn
	return conn, nil
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
func (d *DB) Close(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return nil
	}
	err := d.conn.Close(ctx)
	d.conn = nil
	return err
}

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
// the connections that count against max_connections.
const sampleQuery = `
WITH a AS (
  SELECT state, wait_event_type,
         datname = current_database() AND pid <> pg_backend_pid() AS mine
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
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
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
