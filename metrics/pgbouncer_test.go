package metrics

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/testenv"
)

func TestPgBouncerPoolStats(t *testing.T) {
	cli := testenv.Docker(t)
	image := pgbouncerImage(t)
	for _, mode := range []string{"transaction", "session"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			db := postgresURL(t)
			pool := startPgBouncer(t, cli, image, db, "POOL_MODE="+mode, "DEFAULT_POOL_SIZE=2")
			b := openPgBouncer(t, pool)
			idle := connect(t, pool)
			if _, err := idle.Exec(t.Context(), "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			before, err := b.Read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			// three sleepers on a pool of two: one waits. Each leaves when
			// done, which in session mode is what frees its server.
			var wg sync.WaitGroup
			for range 3 {
				conn := connect(t, pool)
				wg.Go(func() {
					_, _ = conn.Exec(context.Background(), "SELECT pg_sleep(1)")
					_ = conn.Close(context.Background())
				})
			}
			time.Sleep(500 * time.Millisecond)
			during, err := b.Read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			after, err := b.Read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("before %+v\nduring %+v\nafter  %+v", before, during, after)
			checkPools(t, mode, db, before, during, after)
		})
	}
}

// checkPools checks three readings around three sleepers on a pool of two
// next to one idle client.
func checkPools(t *testing.T, mode, db string, before, during, after PoolStats) {
	t.Helper()
	name := db[strings.LastIndex(db, "/")+1:]
	if len(during.Pools) != 1 || during.Pools[0].Database != name || during.Pools[0].User != "postgres" {
		t.Fatalf("pools %+v, want one for %s/postgres", during.Pools, name)
	}
	if during.Total.Mode != mode {
		t.Errorf("pool mode %q, want %q", during.Total.Mode, mode)
	}
	got := during.Total
	got.MaxWait, got.Mode = 0, ""
	// session mode: the idle client keeps its server, so only one of
	// the two goes to a sleeper and two sleepers wait
	want := Pool{ClActive: 3, ClWaiting: 1, SvActive: 2}
	if mode == "session" {
		want = Pool{ClActive: 2, ClWaiting: 2, SvActive: 2}
	}
	if got != want {
		t.Errorf("during the sleep: %+v, want %+v", got, want)
	}
	if w := during.Total.MaxWait; w < 300*time.Millisecond || w > time.Second {
		t.Errorf("max wait %v, want about 500ms", w)
	}
	if after.Total.ClWaiting != 0 || after.Total.ClActive != 1 {
		t.Errorf("after: %+v, want the idle client alone", after.Total)
	}
	if d := after.Traffic.Queries - before.Traffic.Queries; d != 3 {
		t.Errorf("queries counted while sleeping: %d, want 3", d)
	}
	if after.Traffic.WaitTime-before.Traffic.WaitTime < 500*time.Millisecond ||
		after.Traffic.QueryTime-before.Traffic.QueryTime < 3*time.Second {
		t.Errorf("traffic before %+v after %+v: want >= 0.5s more waiting, >= 3s more in queries",
			before.Traffic, after.Traffic)
	}
}

func TestOpenPgBouncerErrorsHidePassword(t *testing.T) {
	cli := testenv.Docker(t)
	image := pgbouncerImage(t)
	pool := startPgBouncer(t, cli, image, postgresURL(t))
	openPgBouncer(t, pool) // up and accepting the right password
	closed := testenv.FreePort(t)
	cases := []struct{ name, dsn string }{
		{"wrong password", strings.Replace(pool, pgPassword, "wr0ng-"+pgPassword, 1)},
		{"unreachable", "postgres://postgres:" + pgPassword + "@127.0.0.1:" + strconv.Itoa(closed) + "/pgbouncer?connect_timeout=2"},
		{"malformed", "postgres://postgres:" + pgPassword + "@127.0.0.1:notaport/pgbouncer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkErrorHidesPassword(t, OpenPgBouncer, c.dsn) })
	}
}

// pgbouncerImage builds (or finds) the demo's PgBouncer image with
// compose/demo/images.sh, once for the package's tests, and returns its
// tag.
func pgbouncerImage(t *testing.T) string {
	t.Helper()
	builtPgBouncer.once.Do(func() { builtPgBouncer.tag, builtPgBouncer.err = buildPgBouncer() })
	if builtPgBouncer.err != nil {
		t.Fatal(builtPgBouncer.err)
	}
	return builtPgBouncer.tag
}

var builtPgBouncer struct {
	once sync.Once
	tag  string
	err  error
}

func buildPgBouncer() (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("../compose/demo/images.sh", "pgbouncer")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("images.sh pgbouncer: %w\n%s", err, stderr.Bytes())
	}
	for line := range strings.Lines(stdout.String()) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "SWEEP_DEMO_PGBOUNCER_IMAGE="); ok {
			return v, nil
		}
	}
	return "", fmt.Errorf("images.sh printed no SWEEP_DEMO_PGBOUNCER_IMAGE: %q", stdout.String())
}

// startPgBouncer runs the image in the host's network namespace in front
// of the database at dbURL (the package's throwaway cluster listens on
// loopback only), with env added to the server and login settings, and
// returns the URL of the same database through the pooler.
func startPgBouncer(t *testing.T, cli *client.Client, image, dbURL string, env ...string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	port := testenv.FreePort(t)
	env = append(env, "DB_HOST="+u.Hostname(), "DB_PORT="+u.Port(), "DB_USER=postgres",
		"DB_PASSWORD="+pgPassword, "LISTEN_ADDR=127.0.0.1", "LISTEN_PORT="+strconv.Itoa(port))
	cfg := &container.Config{Image: image, Env: env}
	testenv.StartContainer(t, cli, cfg, &container.HostConfig{NetworkMode: "host"})
	u.Host = "127.0.0.1:" + strconv.Itoa(port)
	u.RawQuery = "default_query_exec_mode=simple_protocol"
	return u.String()
}

// openPgBouncer opens the admin console at dsn, waiting while PgBouncer
// starts, and closes it when the test ends.
func openPgBouncer(t *testing.T, dsn string) *PgBouncer {
	t.Helper()
	b, err := OpenPgBouncer(t.Context(), dsn, Wait{For: 15 * time.Second})
	if err != nil {
		t.Fatalf("pgbouncer not up in 15s: %v", err)
	}
	t.Cleanup(func() { _ = b.Close(context.Background()) })
	return b
}

func TestParsePgBouncerShow(t *testing.T) {
	pools := []string{"database", "user", "cl_active", "cl_waiting", "sv_active", "sv_idle", "sv_used", "maxwait", "maxwait_us", "pool_mode"}
	cases := []struct {
		name    string
		cols    []string
		rows    [][]string
		want    []Pool
		wantErr string
	}{
		{"1.18, admin console left out", pools, [][]string{
			{"pgbouncer", "pgbouncer", "1", "0", "0", "0", "0", "0", "0", "statement"},
			{"app", "u", "7", "3", "4", "1", "2", "1", "250000", "transaction"},
		}, []Pool{{Database: "app", User: "u", Mode: "transaction", ClActive: 7, ClWaiting: 3, SvActive: 4, SvIdle: 1, SvUsed: 2, MaxWait: 1250 * time.Millisecond}}, ""},
		{"old version without maxwait_us and pool_mode", pools[:8], [][]string{
			{"app", "u", "1", "0", "1", "0", "0", "2"},
		}, []Pool{{Database: "app", User: "u", ClActive: 1, SvActive: 1, MaxWait: 2 * time.Second}}, ""},
		{"missing column", pools[1:], [][]string{{"u", "1", "0", "1", "0", "0", "2", "0", "session"}}, nil, "no column database"},
		{"not a number", pools, [][]string{{"app", "u", "x", "0", "1", "0", "0", "0", "0", "session"}}, nil, "column cl_active"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parsePools(table(c.cols, c.rows))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("pools %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("pool %d: %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestSumPools(t *testing.T) {
	a := Pool{Mode: "transaction", ClActive: 2, ClWaiting: 1, SvActive: 1, SvIdle: 2, SvUsed: 3, MaxWait: time.Second}
	b := Pool{Mode: "transaction", ClActive: 1, SvActive: 1, MaxWait: 2 * time.Second}
	cases := []struct {
		name  string
		pools []Pool
		want  Pool
	}{
		{"none", nil, Pool{}},
		{"one mode", []Pool{a, b}, Pool{Mode: "transaction", ClActive: 3, ClWaiting: 1, SvActive: 2, SvIdle: 2, SvUsed: 3, MaxWait: 2 * time.Second}},
		{"mixed modes", []Pool{a, {Mode: "session", ClActive: 1}}, Pool{ClActive: 3, ClWaiting: 1, SvActive: 1, SvIdle: 2, SvUsed: 3, MaxWait: time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sumPools(c.pools); got != c.want {
				t.Errorf("sum %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParsePgBouncerStats(t *testing.T) {
	cols := []string{"database", "total_xact_count", "total_query_count", "total_received", "total_sent",
		"total_xact_time", "total_query_time", "total_wait_time", "avg_xact_count"}
	tr, err := parseStats(table(cols, [][]string{
		{"pgbouncer", "9", "9", "0", "0", "0", "0", "0", "0"},
		{"a", "10", "20", "100", "200", "1000", "500", "3000000", "1"},
		{"b", "1", "2", "10", "20", "1000", "500", "0", "1"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := Traffic{Transactions: 11, Queries: 22, BytesReceived: 110, BytesSent: 220,
		XactTime: 2 * time.Millisecond, QueryTime: time.Millisecond, WaitTime: 3 * time.Second}
	if tr != want {
		t.Errorf("traffic %+v, want %+v", tr, want)
	}
	if _, err := parseStats(table(cols[:5], [][]string{{"a", "1", "1", "1", "1"}})); err == nil {
		t.Error("stats without total_xact_time parsed")
	}
}

func table(cols []string, rows [][]string) showTable {
	t := showTable{cols: make(map[string]int)}
	for i, c := range cols {
		t.cols[c] = i
	}
	for _, r := range rows {
		row := make([][]byte, len(r))
		for i, v := range r {
			row[i] = []byte(v)
		}
		t.rows = append(t.rows, row)
	}
	return t
}
