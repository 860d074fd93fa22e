package metrics

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PgBouncer reads a PgBouncer's pool statistics over one connection to its
// admin console, the virtual "pgbouncer" database. The console speaks only
// the simple query protocol, so every command goes through it. The login
// must be one of PgBouncer's admin_users or stats_users. A connection lost
// (PgBouncer recreated with another pool mode, say) is dialled again by
// the next Read.
type PgBouncer struct {
	lazyConn
}

// PoolStats is one reading of SHOW POOLS and SHOW STATS.
type PoolStats struct {
	// At is when the reading was taken.
	At time.Time
	// Pools has one entry per database and user, in PgBouncer's order;
	// the admin console's own pool is left out.
	Pools []Pool
	// Total sums the counts over Pools; its MaxWait is the longest, its
	// Mode is set when all pools share one.
	Total Pool
	// Traffic sums SHOW STATS over the databases (admin console left out):
	// counters since PgBouncer started, so rates come from differences.
	Traffic Traffic
}

// Pool is one row of SHOW POOLS.
type Pool struct {
	Database, User string
	// Mode is the pool mode: session, transaction or statement.
	Mode string
	// ClActive counts clients linked to a server or idle; ClWaiting
	// counts clients that sent a query and wait for a server.
	ClActive, ClWaiting int
	// SvActive counts server connections linked to a client, SvIdle those
	// ready for one, SvUsed those idle past server_check_delay.
	SvActive, SvIdle, SvUsed int
	// MaxWait is how long the oldest waiting client has waited.
	MaxWait time.Duration
}

// Traffic holds the totals of SHOW STATS.
type Traffic struct {
	// Transactions and Queries pooled (in session mode a transaction
	// is counted when it ends, as in the other modes).
	Transactions, Queries int64
	// BytesReceived from clients and BytesSent to them.
	BytesReceived, BytesSent int64
	// XactTime and QueryTime were spent in transactions and queries on
	// servers; WaitTime by clients waiting for a server.
	XactTime, QueryTime, WaitTime time.Duration
}

// adminDatabase is the name of PgBouncer's admin console.
const adminDatabase = "pgbouncer"

// OpenPgBouncer connects to the admin console of the PgBouncer at dsn,
// trying again while it does not answer for as long as wait says; the
// DSN's database is replaced by "pgbouncer", so the application's DSN
// pointed at the pooler works as is. Errors (a *ConnectError once the DSN
// parses) show the DSN with its password redacted.
func OpenPgBouncer(ctx context.Context, dsn string, wait Wait) (*PgBouncer, error) {
	b := &PgBouncer{}
	if err := b.parse("pgbouncer", dsn); err != nil {
		return nil, err
	}
	b.cfg.Database = adminDatabase
	b.cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, err := b.dialWaiting(ctx, wait); err != nil {
		return nil, err
	}
	return b, nil
}

// Read takes one reading: SHOW POOLS, then SHOW STATS.
func (b *PgBouncer) Read(ctx context.Context) (PoolStats, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	conn, err := b.connectLocked(ctx)
	if err != nil {
		return PoolStats{}, err
	}
	st := PoolStats{At: time.Now()}
	pools, err := show(ctx, conn.PgConn(), "SHOW POOLS")
	if err == nil {
		st.Pools, err = parsePools(pools)
	}
	var stats showTable
	if err == nil {
		stats, err = show(ctx, conn.PgConn(), "SHOW STATS")
	}
	if err == nil {
		st.Traffic, err = parseStats(stats)
	}
	if err != nil {
		if conn.IsClosed() {
			b.conn = nil
		}
		return PoolStats{}, fmt.Errorf("read pgbouncer %s: %w", b.redacted, err)
	}
	st.Total = sumPools(st.Pools)
	return st, nil
}

// Close closes the connection.
func (b *PgBouncer) Close(ctx context.Context) error { return b.close(ctx) }

// sumPools adds up the pools' counts and keeps the longest wait.
func sumPools(pools []Pool) Pool {
	var t Pool
	for i, p := range pools {
		t.ClActive += p.ClActive
		t.ClWaiting += p.ClWaiting
		t.SvActive += p.SvActive
		t.SvIdle += p.SvIdle
		t.SvUsed += p.SvUsed
		t.MaxWait = max(t.MaxWait, p.MaxWait)
		if i == 0 {
			t.Mode = p.Mode
		} else if t.Mode != p.Mode {
			t.Mode = ""
		}
	}
	return t
}

// showTable is the text answer of one admin console command.
type showTable struct {
	cols map[string]int
	rows [][][]byte
}

// show runs one admin console command with the simple protocol.
func show(ctx context.Context, pc *pgconn.PgConn, cmd string) (showTable, error) {
	res, err := pc.Exec(ctx, cmd).ReadAll()
	if err != nil {
		return showTable{}, fmt.Errorf("%s: %w", cmd, err)
	}
	if len(res) != 1 {
		return showTable{}, fmt.Errorf("%s: %d results, want 1", cmd, len(res))
	}
	t := showTable{cols: make(map[string]int), rows: res[0].Rows}
	for i, f := range res[0].FieldDescriptions {
		t.cols[f.Name] = i
	}
	return t, nil
}

// rowReader reads the named columns of one row and keeps the first error,
// so a parser reads every field and checks once. Columns are found by
// name: PgBouncer versions add and reorder them.
type rowReader struct {
	t   showTable
	row [][]byte
	err error
}

// field returns the column's text; ok is false when the column is absent.
func (r *rowReader) field(col string) (string, bool) {
	i, ok := r.t.cols[col]
	if !ok || i >= len(r.row) {
		return "", false
	}
	return string(r.row[i]), true // NULL reads as ""
}

func (r *rowReader) text(col string) string {
	s, ok := r.field(col)
	if !ok && r.err == nil {
		r.err = fmt.Errorf("no column %s", col)
	}
	return s
}

// int reads a required integer column.
func (r *rowReader) int(col string) int64 {
	return r.parse(col, r.text(col))
}

// optInt reads an integer column that older versions lack, 0 when absent.
func (r *rowReader) optInt(col string) int64 {
	s, _ := r.field(col)
	return r.parse(col, s)
}

func (r *rowReader) parse(col, s string) int64 {
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && r.err == nil {
		r.err = fmt.Errorf("column %s: %w", col, err)
	}
	return n
}

// parsePools reads SHOW POOLS, leaving out the admin console's pool.
func parsePools(t showTable) ([]Pool, error) {
	pools := make([]Pool, 0, len(t.rows))
	for _, row := range t.rows {
		r := rowReader{t: t, row: row}
		p := Pool{
			Database: r.text("database"), User: r.text("user"),
			ClActive: int(r.int("cl_active")), ClWaiting: int(r.int("cl_waiting")),
			SvActive: int(r.int("sv_active")), SvIdle: int(r.int("sv_idle")), SvUsed: int(r.int("sv_used")),
			MaxWait: time.Duration(r.int("maxwait"))*time.Second +
				time.Duration(r.optInt("maxwait_us"))*time.Microsecond,
		}
		p.Mode, _ = r.field("pool_mode")
		if r.err != nil {
			return nil, fmt.Errorf("show pools: %w", r.err)
		}
		if p.Database != adminDatabase {
			pools = append(pools, p)
		}
	}
	return pools, nil
}

// parseStats sums SHOW STATS over the databases but the admin console.
func parseStats(t showTable) (Traffic, error) {
	var tr Traffic
	for _, row := range t.rows {
		r := rowReader{t: t, row: row}
		db := r.text("database")
		x := Traffic{
			Transactions: r.int("total_xact_count"), Queries: r.int("total_query_count"),
			BytesReceived: r.int("total_received"), BytesSent: r.int("total_sent"),
			XactTime:  time.Duration(r.int("total_xact_time")) * time.Microsecond,
			QueryTime: time.Duration(r.int("total_query_time")) * time.Microsecond,
			WaitTime:  time.Duration(r.int("total_wait_time")) * time.Microsecond,
		}
		if r.err != nil {
			return Traffic{}, fmt.Errorf("show stats: %w", r.err)
		}
		if db == adminDatabase {
			continue
		}
		tr.Transactions += x.Transactions
		tr.Queries += x.Queries
		tr.BytesReceived += x.BytesReceived
		tr.BytesSent += x.BytesSent
		tr.XactTime += x.XactTime
		tr.QueryTime += x.QueryTime
		tr.WaitTime += x.WaitTime
	}
	return tr, nil
}
