package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/sweep"
)

// dbExtras is what --db-dsn and --db-reset-sql add to a run: the DB
// sampler's connection and the reset script.
type dbExtras struct {
	db       *metrics.DB // nil without --db-dsn
	resetSQL string
}

// database opens the sampler's connection (one connection, held for the
// run) and reads the reset file, before anything starts.
func (e *runEnv) database(ctx context.Context, spec sweep.Spec) (*dbExtras, error) {
	x := &dbExtras{}
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
	db, err := metrics.Open(ctx, spec.DBDSN)
	if err != nil {
		return nil, sweep.BadInput("db-dsn", "%v; check the DSN (or SWEEP_DB_DSN) and that the database is up", err)
	}
	x.db = db
	largest := 0
	for _, c := range spec.Cells() {
		largest = max(largest, c.DBPool)
	}
	if largest+1 > db.MaxConnections {
		fmt.Fprintf(e.stderr, "sweep: warning: the largest pool (%d) plus the sampler's connection exceeds the database's max_connections (%d)\n",
			largest, db.MaxConnections)
	}
	return x, nil
}

// reset is the runner's Reset hook, or nil without a reset file.
func (x *dbExtras) resetFunc() func(context.Context) error {
	if x.resetSQL == "" || x.db == nil {
		return nil
	}
	return func(ctx context.Context) error { return x.db.Reset(ctx, x.resetSQL) }
}

// monitor is the runner's Monitor: containers of the stack and, with a
// DSN, the database.
func (x *dbExtras) monitor(stack *compose.Stack) sweep.Monitor {
	return nil
}

func (x *dbExtras) close() {
	if x.db != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = x.db.Close(ctx)
	}
}
