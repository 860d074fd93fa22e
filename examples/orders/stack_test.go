package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// stack is examples/orders/docker-compose.yaml brought up by a test.
type stack struct {
	cli  compose.CLI
	inv  compose.Invocation
	env  []string
	app  string // the service's base URL
	dsn  string // the database, as the host reaches it
	root string
}

// startStack builds the images (compose/demo/images.sh pg orders, into a
// .env of the test's own) and brings the stack up on free ports, every
// service labelled with a sweep.run of the test's so that `sweep clean`
// finds what a crashed test left; the stack goes down when the test ends.
func startStack(t *testing.T) *stack {
	t.Helper()
	testenv.Docker(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ccli, err := compose.DetectCLI(t.Context(), sweep.Env(os.Environ()))
	if err != nil {
		testenv.Absent(t, "no compose CLI: "+err.Error())
	}
	app, pg := testenv.FreePort(t), testenv.FreePort(t)
	s := &stack{cli: ccli, root: root, app: fmt.Sprintf("http://127.0.0.1:%d", app),
		dsn: fmt.Sprintf("postgres://sweep:sweep@127.0.0.1:%d/sweep?sslmode=disable", pg)}
	s.env = append(os.Environ(), testenv.Images(t, root, "pg", "orders")...)
	s.env = append(s.env, fmt.Sprintf("SWEEP_EXAMPLE_ORDERS_PORT=%d", app), fmt.Sprintf("SWEEP_EXAMPLE_ORDERS_PG_PORT=%d", pg))
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	runID := "test-orders-" + hex.EncodeToString(id)
	labels := filepath.Join(t.TempDir(), "labels.yaml")
	if err := os.WriteFile(labels, fmt.Appendf(nil, "services:\n  app:\n    labels:\n      %[1]s: %[2]s\n"+
		"  db:\n    labels:\n      %[1]s: %[2]s\n", sweep.LabelRun, runID), 0o644); err != nil {
		t.Fatal(err)
	}
	s.inv = compose.Invocation{Project: sweep.ProjectName(runID), Files: []string{"docker-compose.yaml", labels}}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
		defer cancel()
		if out, err := s.compose(ctx, compose.Down()...); err != nil {
			t.Errorf("compose down: %v\n%s", err, out)
		}
	})
	if out, err := s.compose(t.Context(), compose.UpAll()...); err != nil {
		t.Fatalf("compose up: %v\n%s", err, out)
	}
	return s
}

// compose runs one compose subcommand on the stack.
func (s *stack) compose(ctx context.Context, sub ...string) (string, error) {
	argv := s.cli.Argv(s.inv, sub...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// health waits up to a minute for the service's /healthz to answer 200
// and decodes it into h.
func (s *stack) health(t *testing.T, h any) {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	var last string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := hc.Get(s.app + "/healthz")
		if err != nil {
			last = err.Error()
			continue
		}
		err = json.NewDecoder(resp.Body).Decode(h)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && err == nil {
			return
		}
		last = fmt.Sprintf("%s (%v)", resp.Status, err)
	}
	logs, _ := s.compose(t.Context(), "logs", "--no-color", "app")
	t.Fatalf("/healthz not 200 within a minute: %s\n%s", last, logs)
}

// TestOrdersStack brings the example's compose stack up, checks the
// settings the service says it applied (its start-up log line and
// /healthz: the compose file's 4 workers and pool of 4), then runs
// scenario.yaml through the built-in driver for 5 s of 8 users (closed
// model): every step is an operation with requests and no error, and
// the database saw 1 to the pool's 4 sessions of the service meanwhile.
func TestOrdersStack(t *testing.T) {
	s := startStack(t)
	var h struct {
		Workers int       `json:"workers"`
		DBPool  int       `json:"db_pool"`
		Pool    poolStats `json:"pool"`
	}
	s.health(t, &h)
	logs, err := s.compose(t.Context(), "logs", "--no-color", "app")
	if err != nil || !strings.Contains(logs, "workers=4 db_pool=4") || h.Workers != 4 || h.DBPool != 4 || h.Pool.Max != 4 {
		t.Errorf("applied settings: /healthz %+v; want 4 workers and a pool of 4, logged at start (%v):\n%s", h, err, logs)
	}

	peak := sessionsPeak(t, s.dsn, 4*time.Second)
	m, err := builtin.New(builtin.Options{Script: loadScenario(t)}).Run(t.Context(), sweep.LoadRequest{
		BaseURL: s.app, Load: results.LoadInfo{Model: "closed", VUs: 8}, Duration: 5 * time.Second})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Logf("%d requests, %.0f/s, %d iterations, p99 %.1f ms", m.Requests, m.RPS, m.Iterations, m.LatencyMS.P99)
	checkOps(t, m)
	n := peak()
	t.Logf("the service's database sessions peaked at %d", n)
	if n < 1 || n > 4 {
		t.Errorf("the service held up to %d database sessions under load, want 1 to its pool of 4", n)
	}
}

// sessionsPeak samples the service's sessions (application_name orders)
// every 100 ms for d, and the function it returns answers the most it
// saw. d must end before the load does: a request cut off at the phase's
// end takes its connection with it (pgx closes a connection whose query
// was cancelled), and the pool opens another for the next healthcheck.
func sessionsPeak(t *testing.T, dsn string, d time.Duration) func() int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatalf("the stack's database: %v", err)
	}
	done := make(chan int, 1)
	go func() {
		defer conn.Close(context.WithoutCancel(t.Context()))
		most, end := 0, time.Now().Add(d)
		for time.Now().Before(end) {
			var n int
			err := conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity
WHERE backend_type = 'client backend' AND application_name = 'orders'`).Scan(&n)
			if err != nil {
				t.Errorf("count the sessions: %v", err)
			}
			most = max(most, n)
			time.Sleep(100 * time.Millisecond)
		}
		done <- most
	}()
	return func() int { return <-done }
}
