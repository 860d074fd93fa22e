package metrics

// What the server and a PgBouncer allow, read once before the first cell
// for the runner's connection-limit guard (sweep.ConnLimits).

import (
	"context"
	"fmt"

	"github.com/sweep-tool/sweep/sweep"
)

// Limits reads max_connections, superuser_reserved_connections,
// reserved_connections (0 before PostgreSQL 16) and the client sessions
// open now, the sampler's own among them.
func (d *DB) Limits(ctx context.Context) (sweep.ConnLimits, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	d.mu.Lock()
	defer d.mu.Unlock()
	conn, err := d.connectLocked(ctx)
	if err != nil {
		return sweep.ConnLimits{}, err
	}
	const q = `SELECT current_setting('max_connections')::int,
	current_setting('superuser_reserved_connections')::int,
	coalesce(nullif(current_setting('reserved_connections', true), ''), '0')::int,
	(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')::int`
	var l sweep.ConnLimits
	if err := conn.QueryRow(ctx, q).Scan(&l.MaxConnections, &l.SuperuserReserved, &l.Reserved, &l.InUse); err != nil {
		return l, fmt.Errorf("read connection limits at %s: %w", d.redacted, err)
	}
	return l, nil
}

// Limits reads the pooler's client and pool limits (SHOW CONFIG) and the
// clients it has now (SHOW POOLS, its admin console left out).
func (b *PgBouncer) Limits(ctx context.Context) (sweep.PoolerLimits, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	conn, err := b.connectLocked(ctx)
	if err != nil {
		return sweep.PoolerLimits{}, err
	}
	var l sweep.PoolerLimits
	cfg, err := show(ctx, conn.PgConn(), "SHOW CONFIG")
	if err == nil {
		l, err = parseConfig(cfg)
	}
	var pools showTable
	if err == nil {
		pools, err = show(ctx, conn.PgConn(), "SHOW POOLS")
	}
	var ps []Pool
	if err == nil {
		ps, err = parsePools(pools)
	}
	if err != nil {
		return l, fmt.Errorf("read pgbouncer limits at %s: %w", b.redacted, err)
	}
	t := sumPools(ps)
	l.ClientsInUse = t.ClActive + t.ClWaiting
	return l, nil
}

// parseConfig reads max_client_conn, default_pool_size and
// max_db_connections from SHOW CONFIG's key and value columns.
func parseConfig(t showTable) (sweep.PoolerLimits, error) {
	var l sweep.PoolerLimits
	keys := map[string]*int{"max_client_conn": &l.MaxClientConn, "default_pool_size": &l.DefaultPoolSize,
		"max_db_connections": &l.MaxDBConnections}
	found := 0
	for _, row := range t.rows {
		r := rowReader{t: t, row: row}
		dst, ok := keys[r.text("key")]
		if ok {
			*dst = int(r.int("value"))
			found++
		}
		if r.err != nil {
			return l, fmt.Errorf("show config: %w", r.err)
		}
	}
	if l.MaxClientConn <= 0 {
		return l, fmt.Errorf("show config: no max_client_conn (%d of the limits found)", found)
	}
	return l, nil
}
