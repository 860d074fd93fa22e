package metrics

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// pgPassword is the throwaway cluster's superuser password; the error
// message tests check that it never shows.
const pgPassword = "t0p-s3cret"

// cluster is one throwaway PostgreSQL server shared by the package's
// tests, started on first use and stopped by TestMain.
var cluster struct {
	once sync.Once
	pg   *testenv.PGCluster
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster.pg != nil {
		cluster.pg.Stop()
	}
	os.Exit(code)
}

// postgresURL returns the URL of a fresh, empty database on the shared
// cluster, dropped when the test ends. Without a runnable PostgreSQL it
// skips, or fails under SWEEP_REQUIRE_DOCKER=1.
func postgresURL(t testing.TB) string {
	t.Helper()
	testenv.SkipShort(t)
	cluster.once.Do(func() { cluster.pg, cluster.err = testenv.StartPostgres(pgPassword) })
	if cluster.err != nil {
		testenv.Absent(t, "no throwaway PostgreSQL: "+cluster.err.Error())
	}
	name := fmt.Sprintf("t%d", time.Now().UnixNano())
	adminExec(t, "CREATE DATABASE "+name)
	t.Cleanup(func() { adminExec(t, "DROP DATABASE "+name+" WITH (FORCE)") })
	return cluster.pg.URL + "/" + name
}

func adminExec(t testing.TB, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, cluster.pg.URL+"/postgres")
	if err != nil {
		t.Fatalf("admin connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
