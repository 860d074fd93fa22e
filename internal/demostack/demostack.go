// Package demostack starts the bundled demo stack (compose/demo) from
// compose files a test names, through the compose CLI, and finds its
// healthy target: for tests that check what a file sweep wrote (an export)
// does to the real stack. It is test support; nothing in sweep imports it.
package demostack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// Stack is a demo stack a test started: its compose project and the
// files and env it was started with.
type Stack struct {
	cli     compose.CLI
	inv     compose.Invocation
	env     []string
	project string
}

// Start checks that the compose CLI accepts the merged files, starts the
// stack on free ports and returns; Target waits until the target is
// healthy. A further file labels every service with the test's sweep.run,
// so a crashed test leaves nothing that `sweep clean` cannot find; the
// stack is taken down when the test ends.
func Start(t *testing.T, ccli compose.CLI, files ...string) *Stack {
	t.Helper()
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	runID := "test-export-" + hex.EncodeToString(id)
	labels := filepath.Join(t.TempDir(), "labels.yaml")
	WriteFile(t, labels, fmt.Appendf(nil, "services:\n  app:\n    labels:\n      %[1]s: %[2]s\n"+
		"  db:\n    labels:\n      %[1]s: %[2]s\n", sweep.LabelRun, runID))
	st := &Stack{cli: ccli, project: sweep.ProjectName(runID),
		env: append(os.Environ(), "SWEEP_DEMO_PORT="+strconv.Itoa(testenv.FreePort(t)),
			"SWEEP_DEMO_PG_PORT="+strconv.Itoa(testenv.FreePort(t)))}
	st.inv = compose.Invocation{Project: st.project, Files: append(files, labels)}
	st.run(t, t.Context(), compose.Config()...)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
		defer cancel()
		st.run(t, ctx, compose.Down()...)
	})
	st.run(t, t.Context(), compose.UpAll()...)
	return st
}

// run runs one compose subcommand of the stack; a failure fails the test.
func (st *Stack) run(t *testing.T, ctx context.Context, sub ...string) {
	t.Helper()
	argv := st.cli.Argv(st.inv, sub...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = st.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v: %v\n%s", argv, err, out)
	}
}

// Target waits until the stack's app container is healthy and returns
// its id.
func (st *Stack) Target(t *testing.T, cli *client.Client) string {
	t.Helper()
	f := filters.NewArgs(filters.Arg("label", "com.docker.compose.project="+st.project),
		filters.Arg("label", "com.docker.compose.service=app"))
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		list, err := cli.ContainerList(t.Context(), container.ListOptions{All: true, Filters: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 {
			c, err := cli.ContainerInspect(t.Context(), list[0].ID)
			if err == nil && c.State.Health != nil && c.State.Health.Status == "healthy" {
				return c.ID
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the app of project %s was not healthy within a minute", st.project)
	return ""
}

// WriteFile writes b to path or fails the test.
func WriteFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
