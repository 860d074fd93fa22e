// Package testenv holds what the test files of several packages share, so
// each rule lives in one place. Outside things (a Docker Engine, a k6
// binary, a PostgreSQL 15 cluster, the compose CLI, Chromium) are checked
// here: a test skips with a printed reason when one is absent, but fails
// when CI sets SWEEP_REQUIRE_DOCKER=1, so a green CI means they really ran.
// It also builds throwaway test images and containers, finds the
// multi-node swarm test fixture (make swarm-up; its own switch,
// SWEEP_REQUIRE_SWARM=1), and compares golden files under testdata/ (the
// one -update flag is registered here).
package testenv

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/docker/docker/client"
)

// Docker returns a client for the local Docker Engine. When no engine
// answers it skips the test, or fails it if SWEEP_REQUIRE_DOCKER=1.
func Docker(t testing.TB) *client.Client {
	t.Helper()
	SkipShort(t)
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = cli.Ping(ctx)
	}
	if err != nil {
		Absent(t, "no Docker Engine answers (set DOCKER_HOST or start dockerd): "+err.Error())
	}
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// SkipShort skips a test that needs outside things (Docker, a PostgreSQL
// cluster) under go test -short, so `make unit` runs without them.
func SkipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs Docker or PostgreSQL (make test runs it)")
	}
}

// K6 returns the path of a k6 binary on PATH, or skips the test with a
// reason. SWEEP_REQUIRE_DOCKER does not turn this skip into a failure: CI
// has no k6.
func K6(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("k6")
	if err != nil {
		t.Skip("k6 is not on PATH; install k6 to run this test")
	}
	return path
}

// Absent skips t with reason, or fails it when SWEEP_REQUIRE_DOCKER=1:
// the rule for every outside thing CI installs.
func Absent(t testing.TB, reason string) {
	t.Helper()
	absentUnless(t, "SWEEP_REQUIRE_DOCKER", reason)
}

// absentUnless skips t with reason, or fails it when the variable env is 1.
func absentUnless(t testing.TB, env, reason string) {
	t.Helper()
	if os.Getenv(env) == "1" {
		t.Fatal(env + "=1 but " + reason)
	}
	t.Skip(reason)
}
