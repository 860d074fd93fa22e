package metrics

import (
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestDBLimits reads the test server's limits: max_connections 40, the
// default 3 reserved for superusers, and the sessions open counted.
func TestDBLimits(t *testing.T) {
	dsn := postgresURL(t)
	db := openDB(t, dsn)
	before, err := db.Limits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if before.MaxConnections != 40 || before.SuperuserReserved != 3 || before.InUse < 1 || before.Pooler != nil {
		t.Errorf("limits %+v, want max 40, 3 reserved, the sampler in use", before)
	}
	for range 3 {
		connect(t, dsn)
	}
	after, err := db.Limits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if after.InUse < before.InUse+3 {
		t.Errorf("in use %d after three more connections, was %d", after.InUse, before.InUse)
	}
	if n, _ := after.Allowed(); n != 40-3-after.InUse {
		t.Errorf("allowed %d with %+v", n, after)
	}
}

// TestPgBouncerLimits reads a real PgBouncer's client limit, pool size
// and the clients it has.
func TestPgBouncerLimits(t *testing.T) {
	cli := testenv.Docker(t)
	image := pgbouncerImage(t)
	pool := startPgBouncer(t, cli, image, postgresURL(t), "MAX_CLIENT_CONN=57", "DEFAULT_POOL_SIZE=3")
	b := openPgBouncer(t, pool)
	connect(t, pool)
	connect(t, pool)
	l, err := b.Limits(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if l.MaxClientConn != 57 || l.DefaultPoolSize != 3 || l.ClientsInUse != 2 {
		t.Errorf("limits %+v, want max_client_conn 57, default_pool_size 3, 2 clients", l)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	cols := []string{"key", "value", "default", "changeable"}
	l, err := parseConfig(table(cols, [][]string{{"max_client_conn", "100", "100", "yes"},
		{"default_pool_size", "20", "20", "yes"}, {"max_db_connections", "0", "0", "yes"}, {"pool_mode", "session", "session", "yes"}}))
	if err != nil || l.MaxClientConn != 100 || l.DefaultPoolSize != 20 || l.MaxDBConnections != 0 {
		t.Errorf("%+v %v", l, err)
	}
	if _, err := parseConfig(table(cols, [][]string{{"pool_mode", "session", "session", "yes"}})); err == nil {
		t.Error("no max_client_conn: no error")
	}
	_, err = parseConfig(table(cols, [][]string{{"default_pool_size", "20", "20", "yes"}}))
	if err == nil || !strings.Contains(err.Error(), "(1 of the limits found)") {
		t.Errorf("only default_pool_size: %v; want it counted as 1 of the limits found", err)
	}
	if _, err := parseConfig(table(cols, [][]string{{"max_client_conn", "many", "", ""}})); err == nil {
		t.Error("a value that is no number: no error")
	}
}
