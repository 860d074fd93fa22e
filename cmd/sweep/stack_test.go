package main

// Shared pieces of the end-to-end tests (integration_test.go,
// reliability_test.go): they run the real sweep binary as a separate
// process against the demo stack on a real Docker Engine, on loopback ports
// of their own so they never meet a demo stack on the default ports.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// procTimeout bounds one sweep process of these tests.
const procTimeout = 4 * time.Minute

// binDir holds the sweep binary built for the end-to-end tests.
var binDir string

// The binary and the demo images are made once, by the first test that
// needs them, so unit-only runs (-short, -run TestPlan) pay nothing.
var (
	setupOnce sync.Once
	setupBin  string
	setupErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sweep-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the module root: the tests run in cmd/sweep.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// demo skips without an engine (fails with SWEEP_REQUIRE_DOCKER=1), then
// returns the sweep binary and an Engine client; the first call builds the
// binary and the demo images.
func demo(t *testing.T) (string, *client.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test against the demo stack; not run with -short")
	}
	cli := testenv.Docker(t)
	setupOnce.Do(func() { setupBin, setupErr = setUp(repoRoot(t)) })
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return setupBin, cli
}

// setUp builds the sweep binary and runs images.sh (content-tagged, so
// nothing is rebuilt when nothing changed).
func setUp(root string) (string, error) {
	bin := filepath.Join(binDir, "sweep")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	images := exec.Command("bash", filepath.Join(root, "compose", "demo", "images.sh"))
	images.Dir = root
	if out, err := images.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compose/demo/images.sh: %w\n%s", err, out)
	}
	return bin, nil
}

// ports are the demo stack's published ports for one test.
type ports struct{ app, pg int }

func freePorts(t *testing.T) ports {
	t.Helper()
	return ports{app: testenv.FreePort(t), pg: testenv.FreePort(t)}
}

// demoPassword is the demo database's password; it must never reach the
// run directory or the output in clear.
const demoPassword = "sweep"

func (p ports) dsn() string {
	return fmt.Sprintf("postgres://sweep:%s@127.0.0.1:%d/sweep?sslmode=disable", demoPassword, p.pg)
}

func (p ports) url() string { return fmt.Sprintf("http://127.0.0.1:%d", p.app) }

// cmdline is one sweep invocation: argv after the binary and the extra
// environment (KEY=VALUE).
type cmdline struct {
	args []string
	env  []string
	// out is the run directory; what its run leaves on the engine is
	// removed at the end of the test (empty: nothing is removed).
	out string
}

// demoRun is `sweep run` with the demo config, small and fast: one web and
// one pool multiplier, 1 s warm-up, 3 s measured, 4 virtual users, and no
// control cell (TestDriftFlaggedAndRerun measures one; the others would
// only take longer).
func demoRun(t *testing.T, p ports, out, cpus string, env ...string) cmdline {
	t.Helper()
	root := repoRoot(t)
	args := []string{"run", "--config", filepath.Join(root, "compose", "demo", "sweep.yaml"),
		"--cpus", cpus, "--web-mult", "1", "--db-mult", "2", "--url", p.url(), "--db-dsn", p.dsn(),
		"--warmup", "1s", "--duration", "3s", "--driver", "builtin", "--load", "vus=4",
		"--ready-timeout", "60s", "--control-every", "0", "--out", out}
	if reset := filepath.Join(root, "compose", "demo", "reset.sql"); fileExists(reset) {
		args = append(args, "--db-reset-sql", reset)
	}
	env = append(env, fmt.Sprintf("SWEEP_DEMO_PORT=%d", p.app), fmt.Sprintf("SWEEP_DEMO_PG_PORT=%d", p.pg))
	return cmdline{args: args, env: env, out: out}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// ownedEnv are variables the tests set themselves; inherited values are
// dropped so the outer environment cannot change a test.
var ownedEnv = []string{"SWEEP_DEMO_PORT=", "SWEEP_DEMO_PG_PORT=", "SWEEP_DB_DSN=", "DEMOAPP_FAULT=", "DEMOAPP_FAULT_WHEN="}

func environ(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		owned := false
		for _, p := range ownedEnv {
			owned = owned || strings.HasPrefix(kv, p)
		}
		if !owned {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// syncBuffer is a bytes.Buffer safe to read while the process writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is a running sweep process, leader of its own process group (as a
// shell job is), so a signal can reach it and its children together.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	done           chan struct{}
	began          time.Time
}

// start runs bin with c in the module root. At the end of the test the
// process group is killed if still running and whatever the run left on
// the engine is removed by its label.
func start(t *testing.T, bin string, c cmdline) *proc {
	t.Helper()
	p := &proc{done: make(chan struct{}), began: time.Now()}
	p.cmd = exec.Command(bin, c.args...)
	p.cmd.Dir = repoRoot(t)
	p.cmd.Env = environ(c.env)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		if !p.exited() {
			p.signal(syscall.SIGKILL)
			<-p.done
		}
		removeRun(t, c.out)
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the whole process group, as a terminal's Ctrl-C does.
func (p *proc) signal(sig syscall.Signal) { _ = syscall.Kill(-p.cmd.Process.Pid, sig) }

// wait returns the exit code (-1 when killed by a signal), failing the
// test after procTimeout.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(procTimeout - time.Since(p.began)):
		p.signal(syscall.SIGKILL)
		<-p.done
		t.Fatalf("sweep %s ran over %s\nstderr:\n%s", strings.Join(p.cmd.Args[1:3], " "), procTimeout, p.stderr.String())
	}
	t.Logf("sweep %s: exit %d after %.1f s", p.cmd.Args[1], p.cmd.ProcessState.ExitCode(), time.Since(p.began).Seconds())
	return p.cmd.ProcessState.ExitCode()
}

// runSweep runs c to its end and returns the exit code.
func runSweep(t *testing.T, bin string, c cmdline) (int, *proc) {
	t.Helper()
	p := start(t, bin, c)
	return p.wait(t), p
}

// removeRun removes what the run in dir left on the engine (after a
// failed assertion or a SIGKILL), found by its label.
func removeRun(t *testing.T, dir string) {
	t.Helper()
	if dir == "" {
		return
	}
	meta, err := results.ReadMeta(dir)
	if err != nil || meta.RunID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, err := engine.Connect(ctx, sweep.Env(os.Environ()))
	if err != nil {
		t.Logf("clean run %s: %v", meta.RunID, err)
		return
	}
	defer eng.Close()
	if got, err := compose.Cleanup(ctx, eng, meta.RunID); err != nil || len(got.Containers) > 0 {
		t.Logf("clean run %s: removed %v: %v", meta.RunID, got.Containers, err)
	}
}

// containers lists the containers (any state) carrying all these labels.
func containers(t *testing.T, cli *client.Client, labels ...string) []container.Summary {
	t.Helper()
	args := filters.NewArgs()
	for _, l := range labels {
		args.Add("label", l)
	}
	list, err := cli.ContainerList(t.Context(), container.ListOptions{All: true, Filters: args})
	if err != nil {
		t.Fatalf("list containers: %v", err)
	}
	return list
}

// assertNoContainers fails when a container of the run is left.
func assertNoContainers(t *testing.T, cli *client.Client, runID string) {
	t.Helper()
	for _, c := range containers(t, cli, sweep.LabelRun+"="+runID) {
		t.Errorf("container %s (%s) of run %s is left behind", c.Names, c.State, runID)
	}
}

// waitFor polls cond every 100 ms until it holds, failing the test when
// p exits first or a minute and a half passes.
func waitFor(t *testing.T, p *proc, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for !cond() {
		if p.exited() {
			t.Fatalf("sweep exited (code %d) before %s\nstderr:\n%s", p.cmd.ProcessState.ExitCode(), what, p.stderr.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s\nstderr:\n%s", what, p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitMeta waits until p has written dir/sweep.json and reads it.
func waitMeta(t *testing.T, p *proc, dir string) results.Meta {
	t.Helper()
	waitFor(t, p, "the run's sweep.json", func() bool { return fileExists(filepath.Join(dir, results.MetaFile)) })
	return readMeta(t, dir)
}

func readMeta(t *testing.T, dir string) results.Meta {
	t.Helper()
	meta, err := results.ReadMeta(dir)
	if err != nil {
		t.Fatalf("read sweep.json: %v", err)
	}
	return meta
}

func readRecord(t *testing.T, dir, cellID string) results.Record {
	t.Helper()
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cellID, 1), results.ResultFile))
	if err != nil {
		t.Fatalf("cell %s: %v", cellID, err)
	}
	return rec
}

// longTest skips t unless SWEEP_LONG_TESTS=1: the end-to-end tests of a
// minute and more each (the example stacks, the drift fault, the
// strategies' and the interleaved schedule's runs), which `make test-long`
// runs as CI legs of their own, so that `make test` stays well under 20
// minutes.
func longTest(t *testing.T, about string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: a long end-to-end test")
	}
	if os.Getenv("SWEEP_LONG_TESTS") != "1" {
		t.Skipf("a long end-to-end test (about %s here): make test-long runs it (SWEEP_LONG_TESTS=1), as CI does", about)
	}
}
