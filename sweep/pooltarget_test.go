package sweep

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestPoolEnvOfAnotherService: with --pool-env pgbouncer:DEFAULT_POOL_SIZE
// every cell sets the derived pool on pgbouncer (recreated with the cell,
// as an env axis of another service is), the target gets only its web
// threads and the record says where the pool went. The guard counts that
// pool against the server's max_connections, not the pooler's clients.
func TestPoolEnvOfAnotherService(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.PoolEnv = "pgbouncer:DEFAULT_POOL_SIZE"
	if got := spec.PoolTarget(); got != (PoolTarget{Service: "pgbouncer", Name: "DEFAULT_POOL_SIZE"}) || got.String() != spec.PoolEnv {
		t.Fatalf("pool target %+v", got)
	}
	if got := strings.Join(spec.SweptEnv(), ","); got != "W,N" {
		t.Errorf("swept env of the target %s, want W,N (the pool is pgbouncer's)", got)
	}
	// the pooler takes 1000 clients; the server 10 − 3 reserved − 1 in use
	limits := ConnLimits{MaxConnections: 10, SuperuserReserved: 3, InUse: 1,
		Pooler: &PoolerLimits{MaxClientConn: 1000, DefaultPoolSize: 20}}
	dir, stack := t.TempDir(), &fakeStack{}
	r := &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &fakeDriver{}, Limits: limitsOf(limits)}
	_, err := r.Run(t.Context())
	var over *OverLimitError
	if !errors.As(err, &over) || len(over.Cells) != 1 ||
		!strings.Contains(err.Error(), "cpu_2__web_4__db_8: pool 8 of service pgbouncer = 8 server connections, over the 6 allowed (max_connections 10") {
		t.Fatalf("err %v, want the pool of 8 counted against the server's 6", err)
	}
	spec.OverLimit = OverLimitSkip
	r = &Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &fakeDriver{}, Limits: limitsOf(limits)}
	sum, err := r.Run(t.Context())
	if err != nil || len(sum.Records) != 4 {
		t.Fatalf("err %v, %d records", err, len(sum.Records))
	}
	for _, rec := range sum.Records {
		if rec.Status == results.StatusSkipped {
			continue
		}
		pool := rec.Applied.ServiceEnv["pgbouncer"]["DEFAULT_POOL_SIZE"]
		if pool != itoa(rec.Cell.DBPool) || rec.Applied.Env["DEFAULT_POOL_SIZE"] != "" || rec.Applied.Env["W"] != itoa(rec.Cell.WebThreads) {
			t.Errorf("%s: pgbouncer pool %q, target env %v; want the pool %d on pgbouncer only", rec.Cell.ID, pool,
				rec.Applied.Env, rec.Cell.DBPool)
		}
	}
	if !slices.Equal(stack.applied, []string{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4", "cpu_2__web_2__db_4"}) {
		t.Errorf("applied %q", stack.applied)
	}
}

// TestPoolEnvNamingTheTarget: SERVICE:NAME of the target itself is the
// target's variable.
func TestPoolEnvNamingTheTarget(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.PoolEnv = spec.Service + ":P"
	r := &Runner{Spec: spec}
	cfg := r.targetConfig(spec.Cells()[0], t.TempDir())
	if cfg.Env["P"] != "2" || cfg.ServiceEnv != nil || !slices.Contains(spec.SweptEnv(), "P") {
		t.Errorf("config %+v, swept %v; want P=2 on the target", cfg, spec.SweptEnv())
	}
}

func TestPoolEnvRefusesBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, poolEnv string
		perWeb        bool
		field         string
	}{
		{"empty service", ":P", false, "pool_env"},
		{"bad service", "pg bouncer:P", false, "web_env"},
		{"bad name", "pgbouncer:1P", false, "pool_env"},
		{"empty name", "pgbouncer:", false, "pool_env"},
		{"per web worker in another service", "pgbouncer:P", true, "pool_per_web"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.PoolEnv, spec.PoolPerWeb = c.poolEnv, c.perWeb
			err := spec.ValidatePlan()
			var bad *BadInputError
			if !errors.As(err, &bad) || bad.Field != c.field {
				t.Errorf("err %v, want bad input of %s", err, c.field)
			}
		})
	}
}

func itoa(n int) string { return FormatNumber(float64(n)) }
