package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// pgStore keeps each resource type in its own table (id text, resource
// jsonb). Every call acquires its connection with a bounded wait so that a
// starved pool answers errBusy instead of queueing forever.
type pgStore struct {
	pool    *pgxpool.Pool
	acquire time.Duration
}

// openPG connects a pool of at most poolSize connections and creates the
// schema, retrying every 500 ms until the database answers or wait passes.
func openPG(ctx context.Context, dsn string, poolSize int, acquire, wait time.Duration) (*pgStore, error) {
	pc, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	pc.MaxConns = int32(poolSize)
	pc.MinConns = 0
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

// migrate creates the tables, retrying while the database is not up yet.
// Concurrent instances may race on CREATE TABLE IF NOT EXISTS; the retry
// covers that too.
func (s *pgStore) migrate(ctx context.Context, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var b strings.Builder
	for _, t := range resourceTypes {
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (id text PRIMARY KEY, resource jsonb NOT NULL);\n", tableName(t))
	}
	for {
		_, err := s.pool.Exec(ctx, b.String())
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

func tableName(typ string) string { return strings.ToLower(typ) }

// conn acquires a connection within the acquire timeout; the query itself
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

// exec runs one statement that must touch exactly one row.
func (s *pgStore) exec(ctx context.Context, sql string, args ...any) error {
	c, err := s.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Release()
	tag, err := c.Exec(ctx, sql, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errNotFound
	}
	return nil
}

// Create inserts a new resource. doc travels as text and is cast to jsonb
// by the server, which works with the simple protocol (PgBouncer) too.
func (s *pgStore) Create(ctx context.Context, typ, id string, doc []byte) error {
	return s.exec(ctx, "INSERT INTO "+tableName(typ)+" (id, resource) VALUES ($1, $2::jsonb)", id, string(doc))
}

// Get returns the stored resource or errNotFound.
func (s *pgStore) Get(ctx context.Context, typ, id string) ([]byte, error) {
	c, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	var doc string
	err = c.QueryRow(ctx, "SELECT resource::text FROM "+tableName(typ)+" WHERE id = $1", id).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	return []byte(doc), nil
}

// Update replaces an existing resource or returns errNotFound.
func (s *pgStore) Update(ctx context.Context, typ, id string, doc []byte) error {
	return s.exec(ctx, "UPDATE "+tableName(typ)+" SET resource = $2::jsonb WHERE id = $1", id, string(doc))
}

// Delete removes a resource or returns errNotFound.
func (s *pgStore) Delete(ctx context.Context, typ, id string) error {
	return s.exec(ctx, "DELETE FROM "+tableName(typ)+" WHERE id = $1", id)
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

// Hold occupies n connections at once, each running pg_sleep for d, so
// they show as active sessions in pg_stat_activity.
func (s *pgStore) Hold(ctx context.Context, n int, d time.Duration) error {
	g, ctx := errgroup.WithContext(ctx)
	for range n {
		g.Go(func() error {
			c, err := s.conn(ctx)
			if err != nil {
				return err
			}
			defer c.Release()
			_, err = c.Exec(ctx, "SELECT pg_sleep($1)", d.Seconds())
			return err
		})
	}
	return g.Wait()
}

// redactDSN describes where dsn points (user@host:port/db and the query
// exec mode) without its password, for the start-up log line.
func redactDSN(dsn string) string {
	pc, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "unparsable DATABASE_URL"
	}
	return fmt.Sprintf("%s@%s:%d/%s mode=%s", pc.User, pc.Host, pc.Port, pc.Database,
		strings.ReplaceAll(pc.DefaultQueryExecMode.String(), " ", "_"))
}
