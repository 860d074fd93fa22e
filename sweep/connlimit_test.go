package sweep

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestCheckConnLimits(t *testing.T) {
	t.Parallel()
	cells := testSpec().Cells() // pools 2, 4, 4, 8
	server := ConnLimits{MaxConnections: 10, SuperuserReserved: 3, InUse: 1}
	cases := []struct {
		name     string
		limits   ConnLimits
		replicas int
		over     []string
		allowed  int
	}{
		{"server: 10 − 3 − 1 = 6", server, 1, []string{"cpu_2__web_4__db_8"}, 6},
		{"two replicas double the need", server, 2, []string{"cpu_1__web_2__db_4", "cpu_2__web_2__db_4", "cpu_2__web_4__db_8"}, 6},
		{"replicas 0 count as one", server, 0, []string{"cpu_2__web_4__db_8"}, 6},
		{"reserved_connections too", ConnLimits{MaxConnections: 10, SuperuserReserved: 3, Reserved: 2, InUse: 2}, 1,
			[]string{"cpu_1__web_2__db_4", "cpu_2__web_2__db_4", "cpu_2__web_4__db_8"}, 3},
		{"at the limit is not over", ConnLimits{MaxConnections: 12, SuperuserReserved: 3, InUse: 1}, 1, nil, 8},
		{"a pooler: its client limit counts", ConnLimits{MaxConnections: 10, SuperuserReserved: 3, InUse: 1,
			Pooler: &PoolerLimits{MaxClientConn: 100, DefaultPoolSize: 20, ClientsInUse: 95}}, 1,
			[]string{"cpu_2__web_4__db_8"}, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := CheckConnLimits(cells, PoolShape{Replicas: c.replicas}, c.limits)
			var ids []string
			for _, o := range got {
				ids = append(ids, o.Cell)
				if o.Allowed != c.allowed || o.Need != o.Pool*max(c.replicas, 1) || !strings.Contains(o.Reason(), "allowed") {
					t.Errorf("%+v, want allowed %d", o, c.allowed)
				}
			}
			if !slices.Equal(ids, c.over) {
				t.Errorf("over %q, want %q", ids, c.over)
			}
		})
	}
}

func limitsOf(l ConnLimits) func(context.Context) (ConnLimits, error) {
	return func(context.Context) (ConnLimits, error) { return l, nil }
}

// TestGuardRefuses: by default cells over the limit stop the run before
// any cell, naming them, with nothing recorded and the target never
// started.
func TestGuardRefuses(t *testing.T) {
	t.Parallel()
	dir, stack := t.TempDir(), &fakeStack{}
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: stack, Driver: &fakeDriver{},
		Limits: limitsOf(ConnLimits{MaxConnections: 10, SuperuserReserved: 3, InUse: 1})}
	sum, err := r.Run(t.Context())
	var over *OverLimitError
	if !errors.As(err, &over) || !errors.Is(err, ErrBadInput) || len(over.Cells) != 1 ||
		over.Cells[0].Cell != "cpu_2__web_4__db_8" || !strings.Contains(err.Error(), "cpu_2__web_4__db_8: pool 8 × 1 replica(s)") {
		t.Fatalf("err %v, want the over-limit cell named", err)
	}
	if len(sum.Records) != 0 || len(stack.applied) != 0 {
		t.Errorf("%d records, target applied %d times; want none", len(sum.Records), len(stack.applied))
	}
	assertNothingRecorded(t, dir)
}

// TestGuardSkipsOrFlags: skip records the cell skipped with the reason
// and runs the rest; run measures it and names the finding in its record.
// A skipped cell is checked again by the next run.
func TestGuardSkipsOrFlags(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{OverLimitSkip, OverLimitRun} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			dir, stack := t.TempDir(), &fakeStack{}
			spec := testSpec()
			spec.OverLimit = policy
			limits := ConnLimits{MaxConnections: 10, SuperuserReserved: 3, InUse: 1}
			r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &fakeDriver{}, Limits: limitsOf(limits)}
			sum, err := r.Run(t.Context())
			if err != nil || len(sum.Records) != 4 {
				t.Fatalf("err %v, %d records", err, len(sum.Records))
			}
			rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, "cpu_2__web_4__db_8", 1), results.ResultFile))
			if err != nil {
				t.Fatal(err)
			}
			ran := slices.Contains(stack.applied, "cpu_2__web_4__db_8")
			switch policy {
			case OverLimitSkip:
				if rec.Status != results.StatusSkipped || !strings.Contains(rec.Reason, "pool 8") || ran || len(stack.applied) != 3 {
					t.Errorf("status %s reason %q, applied %q", rec.Status, rec.Reason, stack.applied)
				}
				// The limit was raised: the next run measures it.
				limits.MaxConnections = 100
				r2 := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{}, Driver: &fakeDriver{}, Limits: limitsOf(limits)}
				sum2, err := r2.Run(t.Context())
				if err != nil || sum2.Skipped != 3 || len(sum2.Records) != 1 || sum2.Records[0].Status != results.StatusOK {
					t.Errorf("rerun: err %v, skipped %d, records %+v", err, sum2.Skipped, sum2.Records)
				}
			case OverLimitRun:
				if rec.Status != results.StatusOK || !ran || len(rec.ConnLimit) != 1 ||
					!strings.HasPrefix(rec.ConnLimit[0], "run over the connection limit: pool 8") {
					t.Errorf("status %s conn_limit %q, applied %q", rec.Status, rec.ConnLimit, stack.applied)
				}
			}
		})
	}
}

// TestConnPressure: a peak within 5 % of max_connections and "too many
// clients" lines are named; a peak below is not.
func TestConnPressure(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		usedPct float64
		log     string
		want    []string
	}{
		{"quiet", 94.9, "listening\n", nil},
		{"no max_connections read", 100, "", nil},
		{"peak at 95 %", 95, "", []string{"sessions peaked at 95 % of max_connections 200"}},
		{"postgres refuses", 10, "a\nFATAL: sorry, too many clients already (SQLSTATE 53300)\nb\nFATAL: Sorry, too many clients already\n",
			[]string{"2 line(s) of the target's log say too many clients"}},
		{"pgbouncer refuses", 10, "ERROR: no more connections allowed (max_client_conn)\n",
			[]string{"1 line(s) of the target's log say too many clients"}},
	}
	for _, c := range cases {
		maxConns := 200
		if c.name == "no max_connections read" {
			maxConns = 0
		}
		rec := &results.Record{DB: &results.DBStats{MaxConnections: maxConns, MaxConnectionsUsedPct: c.usedPct}}
		connPressure(rec, c.log)
		if !slices.Equal(rec.ConnLimit, c.want) {
			t.Errorf("%s: %q, want %q", c.name, rec.ConnLimit, c.want)
		}
	}
}

// TestAllowed pins the allowance and its wording: reserved_connections is
// named only when set, a pooler's client limit replaces the server's.
func TestAllowed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		l    ConnLimits
		n    int
		what string
	}{
		{ConnLimits{MaxConnections: 100, SuperuserReserved: 3, InUse: 7}, 90,
			"max_connections 100 − 3 reserved for superusers − 7 in use"},
		{ConnLimits{MaxConnections: 100, SuperuserReserved: 3, Reserved: 5, InUse: 7}, 85,
			"max_connections 100 − 3 reserved for superusers − 5 reserved_connections − 7 in use"},
		{ConnLimits{MaxConnections: 100, Pooler: &PoolerLimits{MaxClientConn: 50, ClientsInUse: 8}}, 42,
			"the pooler's max_client_conn 50 − 8 clients in use"},
	} {
		if n, what := c.l.Allowed(); n != c.n || what != c.what {
			t.Errorf("%+v: %d %q, want %d %q", c.l, n, what, c.n, c.what)
		}
	}
}

func TestValidOverLimit(t *testing.T) {
	t.Parallel()
	for _, s := range []string{OverLimitRefuse, OverLimitSkip, OverLimitRun} {
		if !ValidOverLimit(s) {
			t.Errorf("ValidOverLimit(%q) = false", s)
		}
	}
	for _, s := range []string{"bogus", "Skip", " run"} {
		if ValidOverLimit(s) {
			t.Errorf("ValidOverLimit(%q) = true", s)
		}
	}
}

// logsStack is a stack whose log tail is given.
type logsStack struct {
	fakeStack
	logs string
	err  error
}

func (s *logsStack) Logs(context.Context, int) (string, error) { return s.logs, s.err }

// TestConnPressureReadsTheCellsStack: the log read is the current cell's
// stack when there is one, else the runner's; a log that cannot be read
// is said in sweep.log, a log read is not.
func TestConnPressureReadsTheCellsStack(t *testing.T) {
	t.Parallel()
	refused := "FATAL: sorry, too many clients already\n"
	for _, c := range []struct {
		name           string
		stack, current *logsStack
		want           int
		logged         bool
	}{
		{"runner's stack", &logsStack{logs: refused}, nil, 1, false},
		{"the cell's stack first", &logsStack{}, &logsStack{logs: refused}, 1, false},
		{"unreadable log", &logsStack{err: errors.New("no such container")}, nil, 0, true},
	} {
		var log strings.Builder
		r := &Runner{Stack: c.stack, Log: &log}
		if c.current != nil {
			r.current = c.current
		}
		rec := &results.Record{}
		r.connPressure(t.Context(), rec)
		if len(rec.ConnLimit) != c.want {
			t.Errorf("%s: conn_limit %q, want %d line(s)", c.name, rec.ConnLimit, c.want)
		}
		if got := strings.Contains(log.String(), "read the target's log for connection errors: no such container"); got != c.logged {
			t.Errorf("%s: sweep.log %q, want the read error logged: %v", c.name, log.String(), c.logged)
		}
	}
}

// TestCheckConnLimitsPerWeb: with a pool per web worker (Node.js cluster
// workers) a cell opens web × pool × replicas connections, and the reason
// says so.
func TestCheckConnLimitsPerWeb(t *testing.T) {
	t.Parallel()
	cells := testSpec().Cells()                                              // web × pool: 1×2, 2×4, 2×4, 4×8
	limits := ConnLimits{MaxConnections: 20, SuperuserReserved: 3, InUse: 1} // 16 allowed
	got := CheckConnLimits(cells, PoolShape{Replicas: 1, PerWeb: true}, limits)
	if len(got) != 1 || got[0].Need != 32 || got[0].Workers != 4 ||
		!strings.Contains(got[0].Reason(), "pool 8 per web worker × 4 worker(s) × 1 replica(s) = 32 connections") {
		t.Fatalf("%+v, want only the cell of 4 workers × pool 8 = 32 over 16", got)
	}
	if n := len(CheckConnLimits(cells, PoolShape{Replicas: 1}, limits)); n != 0 {
		t.Errorf("one pool per replica: %d cells over, want none (the largest pool is 8)", n)
	}
	if got := (PoolShape{Replicas: 2, PerWeb: true}).Conns(cells[1].DBPool, cells[1].WebThreads); got != 2*4*2 {
		t.Errorf("2 workers × pool 4 × 2 replicas = %d, want 16", got)
	}
}
