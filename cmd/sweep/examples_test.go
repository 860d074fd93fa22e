package main

// End-to-end tests of the example stacks under examples/: their images
// built by compose/demo/images.sh, a short sweep of each with the
// built-in driver, and what the database saw checked against the knobs.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/results"
)

// exampleCmd is a short sweep of examples/<name> with the built-in driver
// at 1 CPU (1 s warm-up, 3 s measured, 16 VUs) and the flags in extra:
// the images named built by images.sh, the app's and the database's ports
// free and handed over as SWEEP_EXAMPLE_<NAME>_PORT and _PG_PORT, what the
// run leaves on the engine removed when the test ends. --out comes last.
func exampleCmd(t *testing.T, name string, images []string, extra ...string) (cmdline, ports) {
	t.Helper()
	env := testenv.Images(t, repoRoot(t), images...)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	args := append([]string{"run", "--config", filepath.Join(repoRoot(t), "examples", name, "sweep.yaml"),
		"--cpus", "1", "--url", p.url(), "--db-dsn", p.dsn(), "--warmup", "1s", "--duration", "3s",
		"--driver", "builtin", "--load", "vus=16", "--ready-timeout", "60s"}, extra...)
	upper := strings.ToUpper(name)
	env = append(env, fmt.Sprintf("SWEEP_EXAMPLE_%s_PORT=%d", upper, p.app),
		fmt.Sprintf("SWEEP_EXAMPLE_%s_PG_PORT=%d", upper, p.pg))
	t.Cleanup(func() { removeRun(t, out) })
	return cmdline{args: append(args, "--out", out), env: env, out: out}, p
}

// TestNodeExample sweeps examples/node for two cells (2 cluster workers,
// a pool of 2 and of 4 per worker): every cell is ok, and the database's
// peak of sessions is workers × pool (the pool is per worker), give or
// take one. The last cell's target, left up with --keep, reports from
// inside on /health its live cluster workers and each one's pg Pool (the
// worker answering asks the primary, which asks every worker): as many
// workers as the cell's web threads, each its own process with a pool of
// the cell's size. With 8 workers × a pool of 32 the connection-limit
// guard counts 256 connections, over the 200 the database allows, and
// refuses.
func TestNodeExample(t *testing.T) {
	longTest(t, "80-140 s")
	bin, cli := demo(t)
	c, p := exampleCmd(t, "node", []string{"pg", "node"}, "--web-mult", "2", "--db-mult", "1,2", "--keep")
	out := c.out
	if code, pr := runSweep(t, bin, c); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	var spec struct {
		PoolPerWeb bool `json:"pool_per_web"`
	}
	if err := json.Unmarshal(meta.Spec, &spec); err != nil || !spec.PoolPerWeb || len(meta.Cells) != 2 {
		t.Fatalf("sweep.json: pool_per_web %v (%v), %d cells; want true and 2", spec.PoolPerWeb, err, len(meta.Cells))
	}
	cells := map[string]results.CellInfo{}
	for _, cell := range meta.Cells {
		cells[cell.ID] = cell
		rec := readRecord(t, out, cell.ID)
		if rec.Status != results.StatusOK || rec.DB == nil {
			t.Fatalf("%s: status %s (%s), db block %v", cell.ID, rec.Status, rec.Reason, rec.DB != nil)
		}
		want, got := cell.WebThreads*cell.DBPool, rec.DB.Sessions.TotalPeak
		t.Logf("%s: %.0f RPS, p99 %.1f ms, sessions peak %d (workers × pool = %d)", cell.ID,
			rec.RPS, rec.LatencyMS.P99, got, want)
		if got < want-1 || got > want+1 {
			t.Errorf("%s: sessions peaked at %d, want %d workers × pool %d = %d ± 1", cell.ID, got,
				cell.WebThreads, cell.DBPool, want)
		}
	}

	var h struct {
		Workers      int    `json:"workers"`
		Pool         int    `json:"pool"`
		WorkersLive  int    `json:"workers_live"`
		PoolsMissing int    `json:"pools_missing"`
		PoolsError   string `json:"pools_error"`
		Pools        []struct {
			Worker    int `json:"worker"`
			PID       int `json:"pid"`
			PoolMax   int `json:"pool_max"`
			PoolTotal int `json:"pool_total"`
			PoolIdle  int `json:"pool_idle"`
		} `json:"pools"`
	}
	instance := keptHealth(t, p, &h)
	cell, ok := cells[instance]
	t.Logf("%s /health: %+v", instance, h)
	if !ok || h.PoolsError != "" || h.PoolsMissing != 0 || h.WorkersLive != cell.WebThreads || len(h.Pools) != cell.WebThreads ||
		h.Workers != cell.WebThreads || h.Pool != cell.DBPool {
		t.Fatalf("the kept target (X-Instance %q) reports %d live workers, %d pools (%d missing, %q), settings %d × %d; "+
			"want %d workers, each with its pool", instance, h.WorkersLive, len(h.Pools), h.PoolsMissing, h.PoolsError,
			h.Workers, h.Pool, cell.WebThreads)
	}
	pids := map[int]bool{}
	for _, w := range h.Pools {
		pids[w.PID] = true
		if w.PoolMax != cell.DBPool || w.PoolIdle < 0 || w.PoolIdle > w.PoolTotal || w.PoolTotal > w.PoolMax {
			t.Errorf("%s: worker %d (pid %d) has a pool of max %d with %d open, %d idle; want max %d, 0 <= idle <= open <= max",
				cell.ID, w.Worker, w.PID, w.PoolMax, w.PoolTotal, w.PoolIdle, cell.DBPool)
		}
	}
	if len(pids) != cell.WebThreads {
		t.Errorf("%s: %d distinct worker processes among %d pools, want %d", cell.ID, len(pids), len(h.Pools), cell.WebThreads)
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)

	refused := filepath.Join(t.TempDir(), "refused")
	c.out = refused
	c.args = append(c.args[:len(c.args)-1:len(c.args)-1], refused, "--web-mult", "8", "--db-mult", "4")
	t.Cleanup(func() { removeRun(t, refused) })
	code, pr := runSweep(t, bin, c)
	if stderr := pr.stderr.String(); code != exitBadInput ||
		!strings.Contains(stderr, "pool 32 per web worker × 8 worker(s) × 1 replica(s) = 256 connections") {
		t.Fatalf("exit %d, want 2 with the guard counting 8 workers × pool 32\nstderr:\n%s", code, stderr)
	}
}

// TestPHPExample sweeps examples/php for two cells (4 FPM children, a
// PgBouncer pool of 2 and of 3, neither the compose file's 4): every cell
// is ok, PgBouncer was recreated with the cell's pool (the record's
// service_env), the target read back without it, and neither PgBouncer's
// server connections nor the database's sessions went past the pool. The
// last cell's PgBouncer, left up with --keep, says in its own SHOW CONFIG
// (its admin console, as the example's admin_users) that its
// default_pool_size is that cell's pool, and its FPM, on its status page
// (/fpm-status?json through nginx), that its static pool "www" runs as
// many children as the cell's web threads. With a pool of 240 the
// connection-limit guard counts 240 server connections against the
// database's max_connections 200 (not PgBouncer's 1000 clients) and
// refuses.
func TestPHPExample(t *testing.T) {
	longTest(t, "60-160 s")
	bin, cli := demo(t)
	bouncer := testenv.FreePort(t)
	poolerDSN := fmt.Sprintf("postgres://sweep:%s@127.0.0.1:%d/pgbouncer?sslmode=disable", demoPassword, bouncer)
	c, p := exampleCmd(t, "php", []string{"pg", "pgbouncer", "php"}, "--web-mult", "4", "--db-mult", "0.5,0.75",
		"--pooler-dsn", poolerDSN, "--keep")
	c.env = append(c.env, fmt.Sprintf("SWEEP_EXAMPLE_PHP_PGBOUNCER_PORT=%d", bouncer))
	out := c.out
	meta := sweepCells(t, bin, c, 2)
	cells := map[string]results.CellInfo{}
	for _, cell := range meta.Cells {
		cells[cell.ID] = cell
		rec := readRecord(t, out, cell.ID)
		if rec.Status != results.StatusOK || rec.DB == nil || rec.Pooler == nil {
			t.Fatalf("%s: status %s (%s), db block %v, pooler block %v", cell.ID, rec.Status, rec.Reason,
				rec.DB != nil, rec.Pooler != nil)
		}
		pool := fmt.Sprint(cell.DBPool)
		t.Logf("%s: %.0f RPS, p99 %.1f ms, db sessions peak %d, pgbouncer server active peak %d, clients waiting peak %d (pool %d)",
			cell.ID, rec.RPS, rec.LatencyMS.P99, rec.DB.Sessions.TotalPeak, rec.Pooler.SvActivePeak, rec.Pooler.ClWaitingPeak, cell.DBPool)
		if got := rec.Applied.ServiceEnv["pgbouncer"]["DEFAULT_POOL_SIZE"]; got != pool || rec.Applied.Env["DEFAULT_POOL_SIZE"] != "" {
			t.Errorf("%s: pgbouncer's DEFAULT_POOL_SIZE %q, want %s; target env %v", cell.ID, got, pool, rec.Applied.Env)
		}
		if rec.Pooler.SvActivePeak > cell.DBPool || rec.DB.Sessions.TotalPeak > cell.DBPool || rec.DB.Sessions.TotalPeak < 1 {
			t.Errorf("%s: server connections %d, db sessions %d; want 1..%d (the pool)", cell.ID,
				rec.Pooler.SvActivePeak, rec.DB.Sessions.TotalPeak, cell.DBPool)
		}
	}

	// the kept cell: the target's X-Instance; its FPM pool's and its
	// PgBouncer's own figures
	var h struct {
		Status string `json:"status"`
	}
	instance := keptHealth(t, p, &h)
	cell, ok := cells[instance]
	if !ok {
		t.Fatalf("the kept target's X-Instance %q is none of the run's cells", instance)
	}
	var fpm struct {
		Pool     string `json:"pool"`
		Manager  string `json:"process manager"`
		Total    int    `json:"total processes"`
		Idle     int    `json:"idle processes"`
		Active   int    `json:"active processes"`
		Accepted int    `json:"accepted conn"`
	}
	keptJSON(t, p, "/fpm-status?json", &fpm)
	t.Logf("%s: FPM's status: %+v", cell.ID, fpm)
	if fpm.Pool != "www" || fpm.Manager != "static" || fpm.Total != cell.WebThreads {
		t.Errorf("%s: FPM's status has pool %q, process manager %q, %d total processes; want www, static and the cell's %d web threads",
			cell.ID, fpm.Pool, fpm.Manager, fpm.Total, cell.WebThreads)
	}
	b, err := metrics.OpenPgBouncer(t.Context(), poolerDSN, metrics.Wait{For: 10 * time.Second})
	if err != nil {
		t.Fatalf("the kept pgbouncer's admin console: %v", err)
	}
	conf, err := b.Limits(t.Context())
	b.Close(context.Background())
	if err != nil {
		t.Fatalf("the kept pgbouncer's SHOW CONFIG: %v", err)
	}
	t.Logf("%s: pgbouncer's SHOW CONFIG: %+v", cell.ID, conf)
	if conf.DefaultPoolSize != cell.DBPool || conf.MaxClientConn < cell.WebThreads {
		t.Errorf("%s: pgbouncer's SHOW CONFIG has default_pool_size %d, max_client_conn %d; want the cell's pool %d "+
			"and room for its %d FPM children", cell.ID, conf.DefaultPoolSize, conf.MaxClientConn, cell.DBPool, cell.WebThreads)
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)

	refused := filepath.Join(t.TempDir(), "refused")
	c.out = refused
	// the same flags but --keep, the pool 4 × 60
	c.args = append(slices.DeleteFunc(slices.Clone(c.args[:len(c.args)-1]), func(a string) bool { return a == "--keep" }),
		refused, "--db-mult", "60")
	t.Cleanup(func() { removeRun(t, refused) })
	code, pr := runSweep(t, bin, c)
	if stderr := pr.stderr.String(); code != exitBadInput ||
		!strings.Contains(stderr, "pool 240 of service pgbouncer = 240 server connections, over the") ||
		!strings.Contains(stderr, "(max_connections 200 − 3 reserved for superusers") {
		t.Fatalf("exit %d, want 2 with the guard counting pgbouncer's pool of 240 against max_connections\nstderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(results.CellDir(refused, "cpu_1__web_4__db_240", 1), results.ResultFile)); !os.IsNotExist(err) {
		t.Errorf("the refused run recorded a cell: %v", err)
	}
}

// TestJVMExample sweeps examples/jvm for two cells (4 Jetty request
// threads, a HikariCP pool of 2 and of 4): every cell is ok and the
// database's sessions were the pool all through each measured phase
// (minimumIdle = maximumPoolSize: a fixed-size pool, full before the app
// listens). The last cell's target, left up with --keep, reports from
// inside the JVM on /health its thread pool's max (the request threads
// plus Jetty's acceptor and selector) and HikariCP's open connections.
func TestJVMExample(t *testing.T) {
	longTest(t, "90-100 s")
	bin, cli := demo(t)
	// no control cell: the test measures no noise; --keep: /health below
	c, p := exampleCmd(t, "jvm", []string{"pg", "jvm"}, "--web-mult", "4", "--db-mult", "0.5,1",
		"--control-every", "0", "--keep")
	out := c.out
	meta := sweepCells(t, bin, c, 2)
	cells := map[string]results.CellInfo{}
	for _, cell := range meta.Cells {
		cells[cell.ID] = cell
		rec := readRecord(t, out, cell.ID)
		if rec.Status != results.StatusOK || rec.DB == nil {
			t.Fatalf("%s: status %s (%s), db block %v", cell.ID, rec.Status, rec.Reason, rec.DB != nil)
		}
		s := rec.DB.Sessions
		t.Logf("%s: %.0f RPS, p99 %.1f ms, db sessions peak %d, mean %.2f (pool %d)", cell.ID,
			rec.RPS, rec.LatencyMS.P99, s.TotalPeak, s.TotalMean, cell.DBPool)
		if s.TotalPeak != cell.DBPool || s.TotalMean != float64(cell.DBPool) {
			t.Errorf("%s: db sessions peak %d, mean %.2f; want the pool, %d, throughout", cell.ID,
				s.TotalPeak, s.TotalMean, cell.DBPool)
		}
	}

	var h struct {
		WebThreads int `json:"web_threads"`
		ThreadsMax int `json:"threads_max"`
		Threads    int `json:"threads"`
		PoolMax    int `json:"pool_max"`
		PoolMin    int `json:"pool_min_idle"`
		PoolTotal  int `json:"pool_total"`
	}
	instance := keptHealth(t, p, &h)
	cell, ok := cells[instance]
	t.Logf("%s /health: %+v", cell.ID, h)
	if !ok || h.WebThreads != cell.WebThreads || h.ThreadsMax != cell.WebThreads+2 || h.Threads != h.ThreadsMax ||
		h.PoolMax != cell.DBPool || h.PoolMin != cell.DBPool || h.PoolTotal != cell.DBPool {
		t.Errorf("the kept target (X-Instance %q) reports %+v; want %d request threads of a pool of %d, "+
			"HikariCP max, minimum idle and open connections %d", instance, h,
			cell.WebThreads, cell.WebThreads+2, cell.DBPool)
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)
}

// sweepCells runs the sweep c, which must exit 0 having planned n cells,
// and returns its sweep.json.
func sweepCells(t *testing.T, bin string, c cmdline, n int) results.Meta {
	t.Helper()
	if code, pr := runSweep(t, bin, c); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, c.out)
	if len(meta.Cells) != n {
		t.Fatalf("sweep.json: %d cells, want %d", len(meta.Cells), n)
	}
	return meta
}

// keptHealth reads the /health of a target left up with --keep into h and
// returns its X-Instance header: the cell whose target it is.
func keptHealth(t *testing.T, p ports, h any) string {
	t.Helper()
	return keptJSON(t, p, "/health", h)
}

// keptJSON GETs path (with its query) from a target left up with --keep,
// decodes the JSON answer into v and returns the X-Instance header.
func keptJSON(t *testing.T, p ports, path string, v any) string {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(p.url() + path)
	if err != nil {
		t.Fatalf("the kept target's %s: %v", path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the kept target's %s: %s, %v", path, resp.Status, err)
	}
	return resp.Header.Get("X-Instance")
}

// ordersOps are the steps of examples/orders/scenario.yaml, each an
// operation of the record.
var ordersOps = []string{"create", "read", "pay", "search", "delete"}

// TestOrdersExample sweeps examples/orders, whose API is not the demo's,
// with its own scenario file (--scenario) for two cells (4 workers, a
// pool of 2 and of 4): every cell is ok, ran scenario.yaml, was read back
// with the cell's values in the service's own variables (ORDERS_WORKERS,
// ORDERS_DB_POOL, ORDERS_INSTANCE), and every step of the scenario is an
// operation of its result.json with requests and 0 % errors.
func TestOrdersExample(t *testing.T) {
	longTest(t, "60-180 s")
	bin, cli := demo(t)
	c, _ := exampleCmd(t, "orders", []string{"pg", "orders"},
		"--scenario", filepath.Join(repoRoot(t), "examples", "orders", "scenario.yaml"),
		"--web-mult", "4", "--db-mult", "0.5,1", "--control-every", "0")
	meta := sweepCells(t, bin, c, 2)
	for _, cell := range meta.Cells {
		rec := readRecord(t, c.out, cell.ID)
		if rec.Status != results.StatusOK {
			t.Fatalf("%s: status %s (%s)", cell.ID, rec.Status, rec.Reason)
		}
		t.Logf("%s: %.0f RPS, p99 %.1f ms, %d iterations", cell.ID, rec.RPS, rec.LatencyMS.P99, rec.Iterations)
		if f := rec.Load.Scenario; f == nil || f.Name != "scenario.yaml" {
			t.Errorf("%s: load.scenario %+v, want scenario.yaml", cell.ID, f)
		}
		want := map[string]string{"ORDERS_WORKERS": fmt.Sprint(cell.WebThreads), "ORDERS_DB_POOL": fmt.Sprint(cell.DBPool),
			"ORDERS_INSTANCE": cell.ID}
		if !maps.Equal(rec.Applied.Env, want) {
			t.Errorf("%s: read back %v, want %v", cell.ID, rec.Applied.Env, want)
		}
		for _, op := range ordersOps {
			s, ok := rec.Ops[op]
			if !ok || s.Requests == 0 || s.ErrorRate != 0 || s.Skipped != 0 {
				t.Errorf("%s: operation %s: %+v (present %v); want requests and 0 %% errors", cell.ID, op, s, ok)
			}
		}
		if len(rec.Ops) != len(ordersOps) || rec.ErrorRate != 0 || len(rec.Errors) != 0 {
			t.Errorf("%s: %d operations, error rate %v %v; want %d and none", cell.ID, len(rec.Ops), rec.ErrorRate,
				rec.Errors, len(ordersOps))
		}
	}
	removeRun(t, c.out)
	assertNoContainers(t, cli, meta.RunID)
}
