package main

// End-to-end tests of the example stacks under examples/: their images
// built by compose/demo/images.sh, a short sweep of each with the
// built-in driver, and what the database saw checked against the knobs.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// exampleImages runs images.sh for names with its .env written to a
// temporary file and returns the image variables it printed (KEY=VALUE),
// to hand to the sweep process.
func exampleImages(t *testing.T, names ...string) []string {
	t.Helper()
	root := repoRoot(t)
	cmd := exec.CommandContext(t.Context(), "bash", append([]string{filepath.Join(root, "compose", "demo", "images.sh")}, names...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SWEEP_IMAGES_ENV="+filepath.Join(t.TempDir(), ".env"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("images.sh %s: %v\n%s", strings.Join(names, " "), err, stderr.String())
	}
	return strings.Fields(string(out))
}

// exampleCmd is a short sweep of examples/<name> with the built-in driver
// at 1 CPU (1 s warm-up, 3 s measured, 16 VUs) and the flags in extra:
// the images named built by images.sh, the app's and the database's ports
// free and handed over as SWEEP_EXAMPLE_<NAME>_PORT and _PG_PORT, what the
// run leaves on the engine removed when the test ends. --out comes last.
func exampleCmd(t *testing.T, name string, images []string, extra ...string) (cmdline, ports) {
	t.Helper()
	env := exampleImages(t, images...)
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
// take one. With 8 workers × a pool of 32 the connection-limit guard
// counts 256 connections, over the 200 the database allows, and refuses.
func TestNodeExample(t *testing.T) {
	longTest(t, "80-150 s")
	bin, cli := demo(t)
	c, _ := exampleCmd(t, "node", []string{"pg", "node"}, "--web-mult", "2", "--db-mult", "1,2")
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
	for _, cell := range meta.Cells {
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
// PgBouncer pool of 2 and of 4): every cell is ok, PgBouncer was recreated
// with the cell's pool (the record's service_env), the target read back
// without it, and neither PgBouncer's server connections nor the
// database's sessions went past the pool.
func TestPHPExample(t *testing.T) {
	longTest(t, "50-90 s")
	bin, cli := demo(t)
	bouncer := testenv.FreePort(t)
	c, _ := exampleCmd(t, "php", []string{"pg", "pgbouncer", "php"}, "--web-mult", "4", "--db-mult", "0.5,1",
		"--pooler-dsn", fmt.Sprintf("postgres://sweep:%s@127.0.0.1:%d/pgbouncer?sslmode=disable", demoPassword, bouncer))
	c.env = append(c.env, fmt.Sprintf("SWEEP_EXAMPLE_PHP_PGBOUNCER_PORT=%d", bouncer))
	out := c.out
	if code, pr := runSweep(t, bin, c); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	for _, cell := range meta.Cells {
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
	assertNoContainers(t, cli, meta.RunID)
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
	if code, pr := runSweep(t, bin, c); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 2 {
		t.Fatalf("sweep.json: %d cells, want 2", len(meta.Cells))
	}
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

	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(p.url() + "/health")
	if err != nil {
		t.Fatalf("the kept target's /health: %v", err)
	}
	defer resp.Body.Close()
	var h struct {
		WebThreads int `json:"web_threads"`
		ThreadsMax int `json:"threads_max"`
		Threads    int `json:"threads"`
		PoolMax    int `json:"pool_max"`
		PoolMin    int `json:"pool_min_idle"`
		PoolTotal  int `json:"pool_total"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the kept target's /health: %s, %v", resp.Status, err)
	}
	cell, ok := cells[resp.Header.Get("X-Instance")]
	t.Logf("%s /health: %+v", cell.ID, h)
	if !ok || h.WebThreads != cell.WebThreads || h.ThreadsMax != cell.WebThreads+2 || h.Threads != h.ThreadsMax ||
		h.PoolMax != cell.DBPool || h.PoolMin != cell.DBPool || h.PoolTotal != cell.DBPool {
		t.Errorf("the kept target (X-Instance %q) reports %+v; want %d request threads of a pool of %d, "+
			"HikariCP max, minimum idle and open connections %d", resp.Header.Get("X-Instance"), h,
			cell.WebThreads, cell.WebThreads+2, cell.DBPool)
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)
}
