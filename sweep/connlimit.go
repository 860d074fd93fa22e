package sweep

// The connection-limit guard. Once the database is up, before the first
// cell, the runner reads what the server (or a pooler in front of it)
// allows; a cell whose pools would ask for more is not run blind: the run
// stops naming it, or it is recorded skipped, or it runs flagged, as
// Spec.OverLimit says. During a cell, sessions near max_connections or
// "too many clients" in the target's log are named in its record.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// What to do with cells over the connection limit (Spec.OverLimit).
const (
	// OverLimitRefuse (the default) stops the run before any cell,
	// listing them.
	OverLimitRefuse = ""
	// OverLimitSkip records them as skipped, with the reason, and runs
	// the rest.
	OverLimitSkip = "skip"
	// OverLimitRun measures them like any other and flags their records.
	OverLimitRun = "run"
)

// ErrOverLimit marks an OverLimitError.
var ErrOverLimit = errors.New("cells ask for more connections than allowed")

// ConnLimits is what the database, and a pooler in the stack, allow.
type ConnLimits struct {
	// MaxConnections, SuperuserReserved and Reserved are the server's
	// max_connections, superuser_reserved_connections and (PostgreSQL
	// 16+) reserved_connections.
	MaxConnections    int `json:"max_connections"`
	SuperuserReserved int `json:"superuser_reserved_connections"`
	Reserved          int `json:"reserved_connections,omitempty"`
	// InUse counts the client sessions open when the limits were read
	// (the sampler's own among them), before the target started.
	InUse int `json:"in_use"`
	// Pooler is set when a pooler stands between the target and the
	// server: the target's pool then counts against its client limit.
	Pooler *PoolerLimits `json:"pooler,omitempty"`
}

// PoolerLimits are a PgBouncer's limits (SHOW CONFIG) and the clients it
// had when they were read (SHOW POOLS, its admin console left out).
type PoolerLimits struct {
	MaxClientConn    int `json:"max_client_conn"`
	DefaultPoolSize  int `json:"default_pool_size"`
	MaxDBConnections int `json:"max_db_connections"` // 0: no limit
	ClientsInUse     int `json:"clients_in_use"`
}

// Allowed is how many connections the target may open, and what that
// figure is: with a pooler its max_client_conn less the clients it
// already has, else max_connections less the slots reserved for
// superusers (and reserved_connections) and the sessions already open.
func (l ConnLimits) Allowed() (int, string) {
	if p := l.Pooler; p != nil {
		return p.MaxClientConn - p.ClientsInUse, fmt.Sprintf("the pooler's max_client_conn %d − %d clients in use",
			p.MaxClientConn, p.ClientsInUse)
	}
	return l.ServerAllowed()
}

// ServerAllowed is how many more sessions the server itself takes, and
// what that figure is, a pooler or not.
func (l ConnLimits) ServerAllowed() (int, string) {
	what := fmt.Sprintf("max_connections %d − %d reserved for superusers", l.MaxConnections, l.SuperuserReserved)
	if l.Reserved > 0 {
		what += fmt.Sprintf(" − %d reserved_connections", l.Reserved)
	}
	return l.MaxConnections - l.SuperuserReserved - l.Reserved - l.InUse, what + fmt.Sprintf(" − %d in use", l.InUse)
}

// OverLimit is a cell whose pools ask for more connections than allowed.
type OverLimit struct {
	Cell    string `json:"cell"`
	Need    int    `json:"need"` // pool × workers × replicas
	Allowed int    `json:"allowed"`
	Pool    int    `json:"pool"`
	// Workers is the cell's web threads when each has a pool of its own
	// (Spec.PoolPerWeb), else 0: one pool per replica.
	Workers int `json:"workers,omitempty"`
	// Service is the service whose setting the pool is (--pool-env
	// SERVICE:NAME, a pooler's server pool), else empty.
	Service  string `json:"service,omitempty"`
	Replicas int    `json:"replicas"`
	What     string `json:"what"` // how Allowed comes about
}

// Reason is the sentence a record and the run's refusal carry.
func (o OverLimit) Reason() string {
	if o.Service != "" {
		return fmt.Sprintf("pool %d of service %s = %d server connections, over the %d allowed (%s)",
			o.Pool, o.Service, o.Need, o.Allowed, o.What)
	}
	pools := ""
	if o.Workers > 0 {
		pools = fmt.Sprintf(" per web worker × %d worker(s)", o.Workers)
	}
	return fmt.Sprintf("pool %d%s × %d replica(s) = %d connections, over the %d allowed (%s)",
		o.Pool, pools, o.Replicas, o.Need, o.Allowed, o.What)
}

// PoolShape is how a cell's pool becomes connections: one pool per
// process of the target (per replica), one per web worker of each
// replica, or one pool in another service (a pooler). It is the one rule
// for what the database sees of a pool: the connection-limit guard, the
// report's pool bottleneck and rule of thumb, and sweep limits' pool
// bottleneck all count connections by Conns.
type PoolShape struct {
	// Replicas of the target; below 1 counts as 1.
	Replicas int
	// PerWeb: every web worker has a pool of its own (Spec.PoolPerWeb).
	PerWeb bool
	// Service: the pool is this service's setting (--pool-env
	// SERVICE:NAME), a pooler's pool of server connections: it opens
	// the pool alone, against the server's limit.
	Service string
}

// PoolShape is the shape of the pools of s's target run as replicas
// (0 when not known: counted as 1).
func (s Spec) PoolShape(replicas int) PoolShape {
	return PoolShape{Replicas: replicas, PerWeb: s.PoolPerWeb, Service: s.PoolTarget().Service}
}

// workers is how many pools one replica with webThreads holds.
func (p PoolShape) workers(webThreads int) int {
	if p.PerWeb {
		return max(webThreads, 1)
	}
	return 1
}

// Conns is how many connections to the database a cell of pool and
// webThreads may open, so how many sessions it can keep busy at once:
// the pooler's pool alone, else pool × workers × replicas.
func (p PoolShape) Conns(pool, webThreads int) int {
	if p.Service != "" {
		return pool
	}
	return pool * p.workers(webThreads) * max(p.Replicas, 1)
}

// CheckConnLimits lists the cells (each once, in the order given) whose
// connections (PoolShape.Conns) exceed what limits allow.
func CheckConnLimits(cells []Cell, shape PoolShape, limits ConnLimits) []OverLimit {
	allowed, what := limits.Allowed()
	if shape.Service != "" {
		allowed, what = limits.ServerAllowed()
	}
	var out []OverLimit
	seen := map[string]bool{}
	for _, c := range cells {
		need := shape.Conns(c.DBPool, c.WebThreads)
		if seen[c.ID] || need <= allowed {
			continue
		}
		seen[c.ID] = true
		o := OverLimit{Cell: c.ID, Need: need, Allowed: allowed, Pool: c.DBPool, Replicas: max(shape.Replicas, 1),
			Service: shape.Service, What: what}
		if shape.PerWeb {
			o.Workers = shape.workers(c.WebThreads)
		}
		out = append(out, o)
	}
	return out
}

// OverLimitError stops a run whose plan has cells over the connection
// limit when Spec.OverLimit does not say what to do with them; nothing is
// recorded. It is bad input (the plan asks for what the stack cannot
// give).
type OverLimitError struct {
	Cells []OverLimit
}

func (e *OverLimitError) Error() string {
	lines := make([]string, len(e.Cells))
	for i, o := range e.Cells {
		lines[i] = o.Cell + ": " + o.Reason()
	}
	return fmt.Sprintf("%d cell(s) ask for more connections than the database allows:\n  %s\n"+
		"raise the limit, or set {over_limit} to skip (record them skipped, run the rest) or run (measure them, flagged)",
		len(e.Cells), strings.Join(lines, "\n  "))
}

// Unwrap makes errors.Is(err, ErrOverLimit) and errors.Is(err,
// ErrBadInput) true.
func (e *OverLimitError) Unwrap() []error { return []error{ErrOverLimit, ErrBadInput} }

// ValidOverLimit reports whether s is a Spec.OverLimit value.
func ValidOverLimit(s string) bool {
	return s == OverLimitRefuse || s == OverLimitSkip || s == OverLimitRun
}

// guardLimits reads the limits once the database is up (right after
// Prepare) and checks the jobs still to run: with cells over the limit
// the run stops (refuse), or they are remembered to be skipped or
// flagged.
func (r *Runner) guardLimits(ctx context.Context) error {
	if r.Limits == nil {
		return nil
	}
	limits, err := BoundedGet(ctx, r.call("connection limits", 0, OfCallTimeout), r.Limits)
	if err != nil {
		return fmt.Errorf("read the connection limits: %w", err)
	}
	r.logf("connection limits: %+v", limits)
	r.limits = &limits
	cells := make([]Cell, len(r.pending))
	for i, j := range r.pending {
		cells[i] = j.Cell
	}
	over := CheckConnLimits(cells, r.Spec.PoolShape(r.Replicas), limits)
	if len(over) == 0 {
		return nil
	}
	if r.Spec.OverLimit == OverLimitRefuse {
		return &OverLimitError{Cells: over}
	}
	r.overLimit = map[string]OverLimit{}
	for _, o := range over {
		r.overLimit[o.Cell] = o
		r.logf("%s: over the connection limit (%s): %s", o.Cell, r.Spec.OverLimit, o.Reason())
	}
	return nil
}

// errSkipped ends a cell the guard skips; finish records it skipped.
type errSkipped struct{ OverLimit }

func (e errSkipped) Error() string { return "skipped: " + e.Reason() }

// overLimitCell returns errSkipped for a cell to skip, and flags the
// record of a cell run over the limit.
func (r *Runner) overLimitCell(cell Cell, rec *results.Record) error {
	o, ok := r.overLimit[cell.ID]
	if !ok {
		return nil
	}
	if r.Spec.OverLimit == OverLimitSkip {
		return errSkipped{o}
	}
	rec.ConnLimit = append(rec.ConnLimit, "run over the connection limit: "+o.Reason())
	return nil
}

// nearLimitShare is how close to max_connections a peak of sessions must
// come to be named in the record: within 5 %.
const nearLimitShare = 0.95

// tooManyClients are the messages of a refused connection: PostgreSQL's
// and PgBouncer's.
var tooManyClients = []string{"too many clients", "no more connections allowed"}

// connPressure reads the target's log tail and names what came near the
// connection limit in rec.
func (r *Runner) connPressure(ctx context.Context, rec *results.Record) {
	st := r.current
	if st == nil {
		st = r.Stack
	}
	logs, err := BoundedGet(ctx, r.call("log read", 0, OfCallTimeout), func(ctx context.Context) (string, error) { return st.Logs(ctx, 500) })
	if err != nil {
		r.logf("read the target's log for connection errors: %v", err)
	}
	connPressure(rec, logs)
}

// connPressure names in rec a peak of sessions within 5 % of
// max_connections and a refused connection in the target's log tail.
func connPressure(rec *results.Record, targetLog string) {
	if db := rec.DB; db != nil && db.MaxConnections > 0 && db.MaxConnectionsUsedPct >= 100*nearLimitShare {
		rec.ConnLimit = append(rec.ConnLimit, fmt.Sprintf("sessions peaked at %.0f %% of max_connections %d",
			db.MaxConnectionsUsedPct, db.MaxConnections))
	}
	n := 0
	for _, line := range strings.Split(strings.ToLower(targetLog), "\n") {
		for _, m := range tooManyClients {
			if strings.Contains(line, m) {
				n++
				break
			}
		}
	}
	if n > 0 {
		rec.ConnLimit = append(rec.ConnLimit, fmt.Sprintf("%d line(s) of the target's log say too many clients", n))
	}
}
