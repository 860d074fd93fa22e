package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/sweep"
)

// dbExtras is what --db-dsn and --db-reset-sql add to a run: the DB
// sampler's connection and the reset script.
type dbExtras struct {
	db          *metrics.DB // nil without --db-dsn, or until the database answers
	dsn         string
	pooler      *metrics.PgBouncer // nil without --pooler-dsn, or until it answers
	poolerDSN   string
	resetSQL    string
	largestPool int
	stderr      io.Writer
}

// database opens the sampler's connection (one connection, held for the
// run) and reads the reset file, before anything starts.
func (e *runEnv) database(ctx context.Context, spec sweep.Spec) (*dbExtras, error) {
	x := &dbExtras{poolerDSN: spec.PoolerDSN}
	if spec.PoolerDSN != "" {
		if _, err := pgx.ParseConfig(spec.PoolerDSN); err != nil {
			return nil, sweep.BadInput("pooler-dsn", "%s is not a valid DSN", metrics.RedactDSN(spec.PoolerDSN))
		}
	}
	if spec.DBResetSQL != "" {
		b, err := os.ReadFile(spec.DBResetSQL)
		if err != nil {
			return nil, sweep.BadInput("db-reset-sql", "%v", err)
		}
		x.resetSQL = string(b)
		if spec.DBDSN == "" {
			return nil, sweep.BadInput("db-reset-sql", "needs --db-dsn (or SWEEP_DB_DSN) to know where to run")
		}
	}
	if spec.DBDSN == "" {
		fmt.Fprintln(e.stderr, "sweep: no --db-dsn: database metrics are skipped and the report says so")
		return x, nil
	}
	if _, err := pgx.ParseConfig(spec.DBDSN); err != nil {
		return nil, sweep.BadInput("db-dsn", "%s is not a valid DSN; give postgres://user:password@host:port/db",
			metrics.RedactDSN(spec.DBDSN))
	}
	x.dsn, x.largestPool, x.stderr = spec.DBDSN, largestPool(spec), e.stderr
	if db, err := metrics.Open(ctx, spec.DBDSN); err == nil {
		x.db = db
		x.checkMax()
	} else {
		fmt.Fprintf(e.stderr, "sweep: the database does not answer yet (%v); trying again once the stack is up\n", err)
	}
	return x, nil
}

// prepare connects when the database is part of the stack and was not up
// before the first cell; a DSN that still fails then ends the run as bad
// input.
func (x *dbExtras) prepare(ctx context.Context) error {
	if x.poolerDSN != "" && x.pooler == nil {
		b, err := metrics.OpenPgBouncer(ctx, x.poolerDSN)
		if err != nil {
			return sweep.BadInput("pooler-dsn", "%v", err)
		}
		x.pooler = b
	}
	if x.db != nil || x.dsn == "" {
		return nil
	}
	db, err := metrics.Open(ctx, x.dsn)
	if err != nil {
		return sweep.BadInput("db-dsn", "%v; check the DSN (or SWEEP_DB_DSN)", err)
	}
	x.db = db
	x.checkMax()
	return nil
}

// checkMax warns when the largest pool plus the sampler exceeds the
// database's max_connections.
func (x *dbExtras) checkMax() {
	if x.largestPool+1 > x.db.MaxConnections {
		fmt.Fprintf(x.stderr, "sweep: warning: the largest pool (%d) plus the sampler's connection exceeds the database's max_connections (%d)\n",
			x.largestPool, x.db.MaxConnections)
	}
}

func largestPool(spec sweep.Spec) int {
	n := 0
	for _, c := range spec.Cells() {
		n = max(n, c.DBPool)
	}
	return n
}

// reset is the runner's Reset hook, or nil without a reset file.
func (x *dbExtras) resetFunc() func(context.Context) error {
	if x.resetSQL == "" {
		return nil
	}
	return func(ctx context.Context) error {
		if x.db == nil {
			return fmt.Errorf("no database connection for the reset")
		}
		return x.db.Reset(ctx, x.resetSQL)
	}
}

// The stack's engine serves the samplers as it is: compose.Engine holds
// every call metrics.Engine makes.
var _ metrics.Engine = compose.Engine(nil)

// monitor is the runner's Monitor: containers of the stack, what the
// target receives of the load at spec's URL and, with a DSN, the
// database.
func (x *dbExtras) monitor(stacks []*compose.Stack, spec sweep.Spec) sweep.Monitor {
	return &metrics.Monitor{Engine: stacks[0].Engine(), Containers: running(stacks), Target: spec.Service, URL: spec.URL,
		DB: func() *metrics.DB { return x.db }, Pooler: func() *metrics.PgBouncer { return x.pooler }}
}

// running lists the containers of whichever stack is up (one at a time
// with --variant).
func running(stacks []*compose.Stack) func(context.Context) (map[string]string, error) {
	return func(ctx context.Context) (map[string]string, error) {
		for _, st := range stacks {
			ids, err := st.Containers(ctx)
			if err != nil || len(ids) > 0 {
				return ids, err
			}
		}
		return nil, nil
	}
}

func (x *dbExtras) close() {
	if x.pooler != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = x.pooler.Close(ctx)
	}
	if x.db != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = x.db.Close(ctx)
	}
}
