package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// schema creates the tables and the search's index when they are missing.
//
//go:embed schema.sql
var schema string

// Sentinel errors that the handlers turn into status codes.
var (
	// errNotFound: no order with that id (404).
	errNotFound = errors.New("no such order")
	// errBusy: no pool connection within the acquire timeout (503).
	errBusy = errors.New("no database connection available")
)

// item is one line of an order.
type item struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

// order is an order as the API answers it.
type order struct {
	ID        int64     `json:"order_id"`
	Customer  string    `json:"customer"`
	Status    string    `json:"status"`
	Total     float64   `json:"total"`
	Items     []item    `json:"items"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// summary is an order in a customer's list.
type summary struct {
	ID        int64     `json:"order_id"`
	Status    string    `json:"status"`
	Total     float64   `json:"total"`
	CreatedAt time.Time `json:"created_at"`
}

// patch is a partial update: nil fields stay as they are.
type patch struct {
	Customer *string  `json:"customer"`
	Status   *string  `json:"status"`
	Total    *float64 `json:"total"`
}

// poolStats is the pgx pool as it stands, for /healthz.
type poolStats struct {
	Max      int32 `json:"max"`
	Total    int32 `json:"total"`
	Idle     int32 `json:"idle"`
	Acquired int32 `json:"acquired"`
}

// store is what the handlers need from the database; pgStore is the one
// implementation, the bound's test wraps it to hold requests.
type store interface {
	Create(ctx context.Context, o order) (int64, error)
	Get(ctx context.Context, id int64) (order, error)
	Patch(ctx context.Context, id int64, p patch) (order, error)
	Delete(ctx context.Context, id int64) error
	ByCustomer(ctx context.Context, customer string, limit int) ([]summary, error)
	Ping(ctx context.Context) error
	Stats() poolStats
}

// pgStore keeps orders in PostgreSQL through a pgx pool of fixed maximum
// size. Every call acquires its connection with a bounded wait, so a
// starved pool answers errBusy instead of queueing for ever, and runs one
// statement: an order and its lines are written and read in one round
// trip.
type pgStore struct {
	pool    *pgxpool.Pool
	acquire time.Duration
}

// openStore connects a pool of at most size connections (application_name
// orders unless the DSN sets one) and creates the schema, retrying every 500 ms until the database answers or wait passes.
func openStore(ctx context.Context, dsn string, size int, acquire, wait time.Duration) (*pgStore, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse ORDERS_DSN: %w", err)
	}
	pc.MaxConns = int32(size)
	pc.MinConns = 0
	// its sessions are told apart in pg_stat_activity unless the DSN
	// names them otherwise
	if pc.ConnConfig.RuntimeParams["application_name"] == "" {
		pc.ConnConfig.RuntimeParams["application_name"] = "orders"
	}
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("create pool: %w", err)
	}
	s := &pgStore{pool: pool, acquire: acquire}
	if err := s.migrate(ctx, wait); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// migrate runs schema.sql, retrying while the database is not up yet.
func (s *pgStore) migrate(ctx context.Context, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		_, err := s.pool.Exec(ctx, schema)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("create schema within %s: %w", wait, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Close closes the pool.
func (s *pgStore) Close() { s.pool.Close() }

// conn acquires a connection within the acquire timeout; the statement
// then runs under the caller's context.
func (s *pgStore) conn(ctx context.Context) (*pgxpool.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, s.acquire)
	defer cancel()
	c, err := s.pool.Acquire(actx)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("acquire within %s: %w", s.acquire, errBusy)
		}
		return nil, fmt.Errorf("acquire: %w", err)
	}
	return c, nil
}

// createSQL inserts the order and its lines in one statement and returns
// the new id.
const createSQL = `WITH o AS (
  INSERT INTO orders (customer, total) VALUES ($1, $2) RETURNING order_id
), i AS (
  INSERT INTO order_items (order_id, line, sku, qty)
  SELECT o.order_id, t.line, t.sku, t.qty
  FROM o, unnest($3::text[], $4::int[]) WITH ORDINALITY AS t(sku, qty, line)
)
SELECT order_id FROM o`

// Create stores o (its customer, total and items) as a new order.
func (s *pgStore) Create(ctx context.Context, o order) (int64, error) {
	skus, qtys := make([]string, len(o.Items)), make([]int32, len(o.Items))
	for i, it := range o.Items {
		skus[i], qtys[i] = it.SKU, int32(it.Qty)
	}
	c, err := s.conn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Release()
	var id int64
	if err := c.QueryRow(ctx, createSQL, o.Customer, o.Total, skus, qtys).Scan(&id); err != nil {
		return 0, err
	}
	return id, nil
}

// orderColumns are an order's columns and its lines as a JSON array, of
// the row o.
const orderColumns = `o.order_id, o.customer, o.status, o.total::float8, o.created_at, o.updated_at,
  COALESCE((SELECT json_agg(json_build_object('sku', i.sku, 'qty', i.qty) ORDER BY i.line)
            FROM order_items i WHERE i.order_id = o.order_id), '[]'::json)`

// Get returns the order or errNotFound.
func (s *pgStore) Get(ctx context.Context, id int64) (order, error) {
	return s.one(ctx, `SELECT `+orderColumns+` FROM orders o WHERE o.order_id = $1`, id)
}

// Patch sets the fields p has and returns the order as it is then, or
// errNotFound.
func (s *pgStore) Patch(ctx context.Context, id int64, p patch) (order, error) {
	return s.one(ctx, `WITH o AS (
  UPDATE orders SET customer = COALESCE($2, customer), status = COALESCE($3, status),
    total = COALESCE($4, total), updated_at = now()
  WHERE order_id = $1 RETURNING *
) SELECT `+orderColumns+` FROM o`, id, p.Customer, p.Status, p.Total)
}

// one runs a statement answering one order row.
func (s *pgStore) one(ctx context.Context, sql string, args ...any) (order, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return order{}, err
	}
	defer c.Release()
	var o order
	err = c.QueryRow(ctx, sql, args...).Scan(&o.ID, &o.Customer, &o.Status, &o.Total, &o.CreatedAt, &o.UpdatedAt, &o.Items)
	if errors.Is(err, pgx.ErrNoRows) {
		return order{}, errNotFound
	}
	return o, err
}

// Delete removes the order and its lines, or returns errNotFound.
func (s *pgStore) Delete(ctx context.Context, id int64) error {
	c, err := s.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	tag, err := c.Exec(ctx, `DELETE FROM orders WHERE order_id = $1`, id)
	if err == nil && tag.RowsAffected() == 0 {
		return errNotFound
	}
	return err
}

// ByCustomer returns the customer's newest orders, at most limit, through
// the index on (customer, order_id DESC).
func (s *pgStore) ByCustomer(ctx context.Context, customer string, limit int) ([]summary, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	rows, err := c.Query(ctx, `SELECT order_id, status, total::float8, created_at FROM orders
WHERE customer = $1 ORDER BY order_id DESC LIMIT $2`, customer, limit)
	if err != nil {
		return nil, err
	}
	list := []summary{}
	for rows.Next() {
		var o summary
		if err := rows.Scan(&o.ID, &o.Status, &o.Total, &o.CreatedAt); err != nil {
			rows.Close()
			return nil, err
		}
		list = append(list, o)
	}
	return list, rows.Err()
}

// Ping acquires a connection (bounded) and pings the server with it.
func (s *pgStore) Ping(ctx context.Context) error {
	c, err := s.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	return c.Ping(ctx)
}

// Stats is the pool's size and use now.
func (s *pgStore) Stats() poolStats {
	st := s.pool.Stat()
	return poolStats{Max: st.MaxConns(), Total: st.TotalConns(), Idle: st.IdleConns(), Acquired: st.AcquiredConns()}
}

// redactDSN describes where dsn points (user@host:port/db) without its
// password, for the start-up log line.
func redactDSN(dsn string) string {
	pc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "unparsable ORDERS_DSN"
	}
	return fmt.Sprintf("%s@%s:%d/%s", pc.User, pc.Host, pc.Port, pc.Database)
}
