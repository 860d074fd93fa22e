package export

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/demostack"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/report"
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
	ccli, err := compose.DetectCLI(t.Context(), sweep.Env(os.Environ()))
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
	demostack.WriteFile(t, override, b.Bytes())
	st := demostack.Start(t, ccli, base, override)
	got, err := cli.ContainerInspect(t.Context(), st.Target(t, cli))
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
