package scaffold

import (
	"slices"
	"testing"
)

// TestKnobNames: which names are web threads, which a pool, and which
// neither (timeouts, lower bounds, ports, what is no size).
func TestKnobNames(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		web, pool bool
	}{
		{"BOX_WEB_THREAD", true, false},
		{"WEB_CONCURRENCY", true, false},
		{"GUNICORN_WORKERS", true, false},
		{"PHP_FPM_PM_MAX_CHILDREN", true, false},
		{"GOMAXPROCS", true, false},
		{"UV_THREADPOOL_SIZE", true, false}, // threads, though it says POOL
		{"BOX_DB_POOL_MAXIMUM_POOL_SIZE", false, true},
		{"DEFAULT_POOL_SIZE", false, true},
		{"PG_MAX_CONNECTIONS", false, true},
		{"DB_CONNS", false, true},
		{"DB_POOL_TIMEOUT", false, false},
		{"HIKARI_MINIMUM_IDLE", false, false},
		{"DB_POOL_MIN", false, false},
		{"WORKER_PORT", false, false},
		{"DATABASE_URL", false, false},
	} {
		w, _ := webScore(tc.name)
		p, _ := poolScore(tc.name)
		if w > 0 != tc.web || p > 0 != tc.pool {
			t.Errorf("%s: web %d, pool %d; want web %v, pool %v", tc.name, w, p, tc.web, tc.pool)
		}
	}
}

// TestKnobValues: a knob has an integer value of at least 1 the files
// hold.
func TestKnobValues(t *testing.T) {
	t.Parallel()
	s := service{name: "app", env: []envVar{{"A_THREADS", "4", true}, {"B_THREADS", "auto", true}, {"C_THREADS", "0", true},
		{"D_THREADS", "", false}, {"E_WORKERS", " 8 ", true}}}
	if got := names(knobsOf(s, webScore)); !slices.Equal(got, []string{"A_THREADS", "E_WORKERS"}) {
		t.Errorf("knobs %q, want A_THREADS and E_WORKERS", got)
	}
}

// TestHostsIn: the host names a variable's value may name.
func TestHostsIn(t *testing.T) {
	t.Parallel()
	for v, want := range map[string][]string{
		"postgres://u:p@db:5432/x?sslmode=disable": {"db"},
		"jdbc:postgresql://pg.internal/x":          {"pg.internal"},
		"host=pgbouncer port=6432 dbname=x":        {"pgbouncer"},
		"db:5432":                                  {"db"},
		"db":                                       {"db"},
		"some words here":                          nil,
		"a=b":                                      nil,
	} {
		if got := hostsIn(v); !slices.Equal(got, want) {
			t.Errorf("hostsIn(%q) = %q, want %q", v, got, want)
		}
	}
}
