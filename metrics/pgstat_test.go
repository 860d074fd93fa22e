package metrics

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

func TestOpenErrorsHidePassword(t *testing.T) {
	base := postgresURL(t)
	closedPort := testenv.FreePort(t)
	cases := []struct{ name, dsn string }{
		{"wrong password", strings.Replace(base, pgPassword, "wr0ng-"+pgPassword, 1)},
		{"unreachable", "postgres://postgres:" + pgPassword + "@127.0.0.1:" + strconv.Itoa(closedPort) + "/postgres?connect_timeout=2"},
		{"no such database", base + "_missing"},
		{"malformed", "postgres://postgres:" + pgPassword + "@127.0.0.1:notaport/x"},
		{"keyword form", "host=127.0.0.1 port=" + strconv.Itoa(closedPort) + " password=" + pgPassword + " connect_timeout=2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkErrorHidesPassword(t, Open, c.dsn) })
	}
}

// checkErrorHidesPassword opens dsn with open, which must fail, and checks
// that the error does not show pgPassword.
func checkErrorHidesPassword[T interface{ Close(context.Context) error }](t *testing.T,
	open func(context.Context, string, Wait) (T, error), dsn string) {
	t.Helper()
	c, err := open(t.Context(), dsn, Wait{})
	if err == nil {
		_ = c.Close(t.Context())
		t.Fatal("open succeeded, want an error")
	}
	t.Log(err)
	if strings.Contains(err.Error(), pgPassword) {
		t.Errorf("error shows the password: %v", err)
	}
}

func TestDBSamplerSeesSessions(t *testing.T) {
	dsn := postgresURL(t)
	db := openDB(t, dsn)
	if db.MaxConnections != 40 {
		t.Errorf("max_connections = %d, want 40", db.MaxConnections)
	}
	execSQL(t, dsn, "CREATE TABLE locked (id int)")
	for range 3 {
		connect(t, dsn) // idle
	}
	// a compose healthcheck's pg_isready, caught connected: one of the
	// server's connections, not one of the database's sessions
	connect(t, dsn+"?application_name=pg_isready")
	holder := connect(t, dsn) // idle in transaction, holding a lock
	if _, err := holder.Exec(t.Context(), "BEGIN; LOCK TABLE locked"); err != nil {
		t.Fatal(err)
	}
	// The sleepers outlast the sampling however slow the host (3 s ones
	// left a loaded host 0.4 s), and are cancelled after it.
	sleeping, wake := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, sql := range []string{"SELECT pg_sleep(60)", "SELECT pg_sleep(60)", "SELECT count(*) FROM locked"} {
		conn := connect(t, dsn)
		wg.Go(func() { _, _ = conn.Exec(sleeping, sql) })
	}
	time.Sleep(300 * time.Millisecond)
	var reported []results.DBSample
	var mu sync.Mutex
	run := db.StartReporting(t.Context(), func(s results.DBSample) {
		mu.Lock()
		defer mu.Unlock()
		reported = append(reported, s)
	})
	time.Sleep(3500 * time.Millisecond) // two readings, a second and a half to spare
	stats, samples := run.Stop()
	mu.Lock()
	if !reflect.DeepEqual(reported, samples) {
		t.Errorf("reported %+v, kept %+v", reported, samples)
	}
	mu.Unlock()
	if _, err := holder.Exec(t.Context(), "COMMIT"); err != nil {
		t.Error(err)
	}
	wake()
	wg.Wait() // the waiter got its lock, the sleepers were cancelled
	t.Logf("db: %+v", stats)
	want := results.DBSample{Total: 7, Active: 3, Idle: 3, IdleInTx: 1, Waiting: 1}
	if len(samples) < 2 {
		t.Fatalf("%d samples, want >= 2", len(samples))
	}
	for _, s := range samples {
		got := s
		got.T, got.TPS, got.RollbacksPerS = 0, 0, 0
		if got != want {
			t.Errorf("t=%.2f: sample %+v, want %+v", s.T, got, want)
		}
	}
	wantSessions := results.DBSessions{TotalMean: 7, TotalPeak: 7, ActiveMean: 3, ActivePeak: 3, IdleMean: 3, IdleInTxPeak: 1, WaitingPeak: 1}
	if stats.Sessions != wantSessions || stats.SamplesMissing != 0 {
		t.Errorf("summary %+v, want sessions %+v", stats, wantSessions)
	}
	if stats.MaxConnectionsUsedPct < 9/40.0*100 {
		t.Errorf("max_connections used %.1f%%, want >= 22.5%% (7 sessions, pg_isready and the sampler)", stats.MaxConnectionsUsedPct)
	}
}

// TestDBSamplerCountsTransactions: 200 commits and 10 rollbacks. Each
// per-second rate is over the interval between two readings, which a
// loaded host stretches or shrinks, so summing them gives the counts
// only roughly (within a factor of 2 here); their ratio is exact, and
// the wait for them is for the readings to show them, not a fixed time.
func TestDBSamplerCountsTransactions(t *testing.T) {
	dsn := postgresURL(t)
	db := openDB(t, dsn)
	var mu sync.Mutex
	var seen float64 // rollbacks, summed per second
	run := db.StartReporting(t.Context(), func(s results.DBSample) { mu.Lock(); seen += s.RollbacksPerS; mu.Unlock() })
	conn := connect(t, dsn)
	for range 200 {
		if _, err := conn.Exec(t.Context(), "SELECT 1"); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		if _, err := conn.Exec(t.Context(), "BEGIN; SELECT 1; ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close(t.Context()) // a backend flushes its statistics on exit, the rollbacks with the last commits
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		done := seen > 0
		mu.Unlock()
		if done {
			break
		}
	}
	stats, samples := run.Stop()
	var commits, rollbacks float64
	for _, s := range samples {
		commits += s.TPS
		rollbacks += s.RollbacksPerS
	}
	t.Logf("db: %+v; summed per-second commits %.1f rollbacks %.1f", stats, commits, rollbacks)
	if commits < 100 || commits > 400 || rollbacks < 5 || rollbacks > 20 {
		t.Errorf("commits seen = %.1f, rollbacks %.1f; want about 200 and 10", commits, rollbacks)
	}
	if r := stats.RollbacksPerSMean / stats.TPSMean; stats.TPSMean <= 0 || r < 10/215.0 || r > 10/190.0 {
		t.Errorf("means %+v: rollbacks per commit %.4f, want 10 of about 200", stats, r)
	}
}

func TestDBSamplerSurvivesLostDatabase(t *testing.T) {
	dsn := postgresURL(t)
	db := openDB(t, dsn)
	name := db.Database
	run := db.Start(t.Context())
	time.Sleep(1200 * time.Millisecond)
	lost := time.Now()
	adminExec(t, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS false")
	adminExec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+name+"'")
	time.Sleep(2 * time.Second)
	adminExec(t, "ALTER DATABASE "+name+" ALLOW_CONNECTIONS true")
	// The database was gone for 2 s and the admin statements' time, which
	// a loaded host stretches: a reading a tick, and one either side.
	gone := time.Since(lost)
	time.Sleep(2200 * time.Millisecond)
	stopped := time.Now()
	stats, samples := run.Stop()
	// A reading under way is bounded by a tick: 10 s is many over.
	if d := time.Since(stopped); d > 10*time.Second {
		t.Errorf("Stop took %v", d)
	}
	t.Logf("db: %+v; gone for %s", stats, gone)
	if most := int(gone/Tick) + 2; stats.SamplesMissing < 1 || stats.SamplesMissing > most {
		t.Errorf("missing samples = %d, want 1..%d", stats.SamplesMissing, most)
	}
	if last := samples[len(samples)-1]; last.Missing {
		t.Errorf("last sample missing: the sampler did not reconnect")
	}
	if err := db.Reset(t.Context(), "SELECT 1"); err != nil {
		t.Errorf("reset after reconnect: %v", err)
	}
}

func TestReset(t *testing.T) {
	dsn := postgresURL(t)
	db := openDB(t, dsn)
	execSQL(t, dsn, "CREATE TABLE r (id int); INSERT INTO r SELECT generate_series(1, 100)")
	cases := []struct {
		name, sql string
		wantErr   bool
		wantRows  int
	}{
		{"multi-statement script", "TRUNCATE r; INSERT INTO r VALUES (1); INSERT INTO r VALUES (2);", false, 2},
		{"failing statement", "TRUNCATE r; SELECT * FROM no_such_table;", true, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := db.Reset(t.Context(), c.sql)
			if (err != nil) != c.wantErr {
				t.Fatalf("Reset: %v, want error %v", err, c.wantErr)
			}
			var n int
			if err := connect(t, dsn).QueryRow(t.Context(), "SELECT count(*) FROM r").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != c.wantRows {
				t.Errorf("rows = %d, want %d", n, c.wantRows)
			}
		})
	}
}

func openDB(t testing.TB, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn, Wait{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	return db
}

func connect(t testing.TB, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func execSQL(t testing.TB, dsn, sql string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
