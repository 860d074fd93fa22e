package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/sweep"
)

// samplers is what a database DSN, a PgBouncer DSN and a reset file add
// to a run: the samplers' connections and the reset script.
type samplers struct {
	db        *metrics.DB // nil without a DSN, or until prepare
	dsn       string
	pooler    *metrics.PgBouncer // nil without a PgBouncer DSN, or until prepare
	poolerDSN string
	wait      time.Duration // how long prepare waits for a server that does not answer yet
	resetSQL  string
	notify    func(Event)
	mesh      map[uint16]meshPort // on a swarm: the ports of its routing mesh, by port
	// forward, on Kubernetes, reaches a DSN whose host is a Service of
	// the run through a port-forward (see viaForward); forwards are the
	// ones open, closed with the samplers.
	forward  forwardFunc
	forwards []func() error
}

// samplers checks the DSNs' form and reads the reset file, before
// anything starts; it connects nothing (see prepare).
func (s *Session) samplers() (*samplers, error) { return newSamplers(s.spec, s.notify) }

// newSamplers is samplers for spec's DSNs and reset file.
func newSamplers(spec sweep.Spec, notify func(Event)) (*samplers, error) {
	x := &samplers{poolerDSN: spec.PoolerDSN, wait: spec.ReadyTimeout.Std(), notify: notify}
	if spec.PoolerDSN != "" {
		if _, err := pgx.ParseConfig(spec.PoolerDSN); err != nil {
			return nil, sweep.BadInput("pooler_dsn", "%s is not a valid DSN", metrics.RedactDSN(spec.PoolerDSN))
		}
	}
	if spec.DBResetSQL != "" {
		b, err := os.ReadFile(spec.DBResetSQL)
		if err != nil {
			return nil, sweep.BadInput("db_reset_sql", "%v", err)
		}
		x.resetSQL = string(b)
		if spec.DBDSN == "" {
			return nil, sweep.BadInput("db_reset_sql", "needs {db_dsn} (or SWEEP_DB_DSN) to know where to run")
		}
	}
	if spec.DBDSN == "" {
		notify(NoDatabase{})
		return x, nil
	}
	if _, err := pgx.ParseConfig(spec.DBDSN); err != nil {
		return nil, sweep.BadInput("db_dsn", "%s is not a valid DSN; give postgres://user:password@host:port/db",
			metrics.RedactDSN(spec.DBDSN))
	}
	x.dsn = spec.DBDSN
	return x, nil
}

// prepare checks the DSNs (connect and authenticate) once the services
// the target needs are up, before the first cell: a database that is part
// of the stack is waited for, a refusal is at once bad input naming the
// DSN's field, with the host and the error but never the password.
func (x *samplers) prepare(ctx context.Context) error {
	if x.dsn != "" && x.db == nil {
		dsn, err := x.viaForward(ctx, "db_dsn", x.dsn)
		if err != nil {
			return err
		}
		db, err := metrics.Open(ctx, dsn, x.waitFor("the database", x.dsn))
		if err != nil {
			return x.connectError("db_dsn", "SWEEP_DB_DSN", x.dsn, err)
		}
		x.db = db
	}
	if x.poolerDSN != "" && x.pooler == nil {
		dsn, err := x.viaForward(ctx, "pooler_dsn", x.poolerDSN)
		if err != nil {
			return err
		}
		b, err := metrics.OpenPgBouncer(ctx, dsn, x.waitFor("PgBouncer", x.poolerDSN))
		if err != nil {
			return x.connectError("pooler_dsn", "SWEEP_POOLER_DSN", x.poolerDSN, err)
		}
		x.pooler = b
	}
	return nil
}

// limitsFunc is the runner's Limits (the connection-limit guard): the
// server's limits and, with a pooler in the stack, the pooler's; nil
// without a DSN.
func (x *samplers) limitsFunc() func(context.Context) (sweep.ConnLimits, error) {
	if x.dsn == "" {
		return nil
	}
	return func(ctx context.Context) (sweep.ConnLimits, error) {
		l, err := x.db.Limits(ctx)
		if err != nil || x.pooler == nil {
			return l, err
		}
		p, err := x.pooler.Limits(ctx)
		l.Pooler = &p
		return l, err
	}
}

// resetFunc is the runner's Reset hook, or nil without a reset file.
func (x *samplers) resetFunc() func(context.Context) error {
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

// The stack's engine serves the samplers as it is: engine.Engine holds
// every call metrics.Engine makes.
var _ metrics.Engine = engine.Engine(nil)

// targetUsage is a stack that reads its target's resources itself (no
// Docker Engine): Kubernetes' is one, which the check below keeps so.
type targetUsage interface {
	TargetUsage(context.Context) (metrics.ReadUsage, error)
}

var (
	_ targetUsage = (*kube.Stack)(nil)
	_ targetUsage = (*kube.Copy)(nil)
	_ received    = (*kube.Stack)(nil)
	_ received    = (*kube.Copy)(nil)
)

// received is a stack (or a target) that counts what its target
// received as its platform samples it: the proof of delivery without a
// Docker Engine.
type received interface {
	Received(context.Context) (metrics.Counted, error)
}

// monitor is the runner's Monitor: containers of the stack, what the
// target receives of the load at spec's URL and, with a DSN, the
// database.
func (x *samplers) monitor(eng metrics.Engine, stacks []Stack, spec sweep.Spec) sweep.Monitor {
	m := &metrics.Monitor{Engine: eng, Containers: running(stacks), Target: spec.Service, URL: spec.URL,
		DB: func() *metrics.DB { return x.db }, Pooler: func() *metrics.PgBouncer { return x.pooler }}
	// a stack without a Docker Engine (Kubernetes) counts what its target
	// received as its platform samples it
	if c, ok := stacks[0].(received); ok && len(stacks) == 1 {
		m.Received = c.Received
	}
	if u, ok := stacks[0].(targetUsage); ok && len(stacks) == 1 {
		m.TargetUsage = u.TargetUsage
	}
	return m
}

// targetMonitor is the samplers of one target of an interleaved group:
// the stack's services and that target's container, the load's delivery
// proven at its URL.
func (x *samplers) targetMonitor(eng metrics.Engine, stacks []Stack, spec sweep.Spec) func(sweep.Target) sweep.Monitor {
	return func(t sweep.Target) sweep.Monitor {
		shared := running(stacks)
		m := &metrics.Monitor{Engine: eng, Target: spec.Service, URL: t.URL(),
			DB: func() *metrics.DB { return x.db }, Pooler: func() *metrics.PgBouncer { return x.pooler }}
		if u, ok := t.(targetUsage); ok { // no Docker Engine: the target's platform counts (Kubernetes)
			m.Containers, m.TargetUsage = shared, u.TargetUsage
			if c, ok := t.(received); ok {
				m.Received = c.Received
			}
			return m
		}
		m.Containers = func(ctx context.Context) (map[string]string, error) {
			ids, err := shared(ctx)
			if err != nil {
				return nil, err
			}
			a, err := t.ReadBack(ctx)
			if err != nil {
				return nil, err
			}
			out := map[string]string{spec.Service: a.ContainerID}
			for svc, id := range ids {
				if svc != spec.Service {
					out[svc] = id
				}
			}
			return out, nil
		}
		return m
	}
}

// running lists the containers of whichever stack is up (one at a time
// with variants).
func running(stacks []Stack) func(context.Context) (map[string]string, error) {
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

// close closes the samplers' connections, each within 5 s, and then
// their port-forwards.
func (x *samplers) close() error {
	var errs []error
	if x.pooler != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := x.pooler.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close the pooler's sampler: %w", err))
		}
	}
	if x.db != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := x.db.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close the database's sampler: %w", err))
		}
	}
	for _, stop := range x.forwards {
		if err := stop(); err != nil {
			errs = append(errs, fmt.Errorf("a port-forward of the samplers: %w", err))
		}
	}
	x.forwards = nil
	return errors.Join(errs...)
}
