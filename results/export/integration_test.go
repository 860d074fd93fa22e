package export

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results/report"
	"github.com/sweep-tool/sweep/sweep"
)

// demoDir is the bundled demo stack, relative to this package.
var demoDir = filepath.Join("..", "..", "compose", "demo")

// TestExportedOverrideStartsTheDemo exports a demo run's balanced pick at
// a CPU budget as a compose override, merges it with the demo's compose
// file through the compose CLI (SWEEP_COMPOSE_CLI=v1|v2 picks which),
// starts the stack and reads the target's CPU limit and env back from
// the engine: exactly the exported ones.
func TestExportedOverrideStartsTheDemo(t *testing.T) {
	cli := testenv.Docker(t)
	ccli, err := compose.DetectCLI(t.Context())
	if err != nil {
		testenv.Absent(t, err.Error())
	}
	demoImages(t, cli)
	base, err := filepath.Abs(filepath.Join(demoDir, "docker-compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec := smallSpec()
	spec.Compose, spec.WebEnv, spec.PoolEnv = []string{base}, "BOX_WEB_THREAD", "BOX_DB_POOL_MAXIMUM_POOL_SIZE"
	run := loadFixture(t, fixture{spec: spec, cells: smallRun().cells})
	s, err := Export(run, Options{Profile: "balanced", CPUs: 1.5, Format: FormatCompose, Report: report.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	override := filepath.Join(dir, "export.yaml")
	var b bytes.Buffer
	if err := Write(&b, s, FormatCompose); err != nil {
		t.Fatal(err)
	}
	writeFile(t, override, b.Bytes())
	st := startDemo(t, ccli, base, override)
	got, err := cli.ContainerInspect(t.Context(), st.target(t, cli))
	if err != nil {
		t.Fatal(err)
	}
	if got.HostConfig.NanoCPUs != int64(1.5e9) {
		t.Errorf("target CPU limit %d nano-CPUs, exported 1.5 CPUs", got.HostConfig.NanoCPUs)
	}
	for name, v := range s.Env {
		if !slices.Contains(got.Config.Env, name+"="+v) {
			t.Errorf("target env %v lacks the exported %s=%s", got.Config.Env, name, v)
		}
	}
	t.Logf("%s: exported %v at 1.5 CPUs; the engine runs %s with %d nano-CPUs", ccli, s.Env, s.Service,
		got.HostConfig.NanoCPUs)
}

// demoImages makes sure the images compose/demo/.env names exist: when
// .env is missing or names an image the engine lacks, images.sh builds
// them (content-tagged) and rewrites .env.
func demoImages(t *testing.T, cli *client.Client) {
	t.Helper()
	if env, err := os.ReadFile(filepath.Join(demoDir, ".env")); err == nil && imagesPresent(t, cli, string(env)) {
		return
	}
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join(demoDir, "images.sh"), "app", "pg")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("images.sh: %v\n%s", err, out)
	}
}

// imagesPresent reports whether the app and PostgreSQL images an .env
// names are in the engine.
func imagesPresent(t *testing.T, cli *client.Client, env string) bool {
	t.Helper()
	n := 0
	for line := range strings.Lines(env) {
		name, ref, _ := strings.Cut(strings.TrimSpace(line), "=")
		if name != "SWEEP_DEMO_APP_IMAGE" && name != "SWEEP_DEMO_PG_IMAGE" {
			continue
		}
		if _, err := cli.ImageInspect(t.Context(), ref); err != nil {
			return false
		}
		n++
	}
	return n == 2
}

// demoStack is a demo stack the test started: its compose project and
// the files and env it was started with.
type demoStack struct {
	cli     compose.CLI
	inv     compose.Invocation
	env     []string
	project string
}

// startDemo checks that the compose CLI accepts the merged files, starts
// the stack on free ports and waits until the target is healthy. A third
// file labels every service with the test's sweep.run, so a crashed test
// leaves nothing that `sweep clean` cannot find; the stack is taken down
// when the test ends.
func startDemo(t *testing.T, ccli compose.CLI, files ...string) *demoStack {
	t.Helper()
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	runID := "test-export-" + hex.EncodeToString(id)
	labels := filepath.Join(t.TempDir(), "labels.yaml")
	writeFile(t, labels, fmt.Appendf(nil, "services:\n  app:\n    labels:\n      %[1]s: %[2]s\n"+
		"  db:\n    labels:\n      %[1]s: %[2]s\n", sweep.LabelRun, runID))
	st := &demoStack{cli: ccli, project: sweep.ProjectName(runID),
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
func (st *demoStack) run(t *testing.T, ctx context.Context, sub ...string) {
	t.Helper()
	argv := st.cli.Argv(st.inv, sub...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = st.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("%v: %v\n%s", argv, err, out)
	}
}

// target waits until the stack's app container is healthy and returns
// its id.
func (st *demoStack) target(t *testing.T, cli *client.Client) string {
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

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
