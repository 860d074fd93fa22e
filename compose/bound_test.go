package compose

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/internal/boundtest"
	"github.com/sweep-tool/sweep/sweep"
)

// fakeCLIEnv, set in a compose command's environment, makes the test
// binary the compose CLI of the fake platform whose state is in that
// directory (see fakeCLI).
const fakeCLIEnv = "SWEEP_TEST_FAKE_COMPOSE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(fakeCLIEnv); dir != "" {
		os.Exit(fakeCLI(dir, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeCLI is the compose CLI of a fake platform: `config --services`
// prints app and db, `up` records the services it starts and the last
// -f file (the override) in dir, `down` and the rest answer at once. An
// up whose number is in dir/hang (or every command, with hang "all")
// accepts and never answers: it waits until run's SIGTERM ends it.
func fakeCLI(dir string, args []string) int {
	var files, sub []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-p":
			i++
		case "-f":
			i++
			files = append(files, args[i])
		case "--compatibility":
		default:
			sub = args[i:]
			i = len(args)
		}
	}
	hang, _ := os.ReadFile(filepath.Join(dir, "hang"))
	if strings.TrimSpace(string(hang)) == "all" {
		time.Sleep(time.Hour)
	}
	switch {
	case slices.Equal(sub, ConfigServices()):
		fmt.Println("app\ndb")
	case len(sub) > 0 && sub[0] == "up":
		ups := appendLine(dir, "ups", "up")
		if strings.TrimSpace(string(hang)) == strconv.Itoa(ups) {
			time.Sleep(time.Hour)
		}
		services := slices.DeleteFunc(slices.Clone(sub[1:]), func(a string) bool { return strings.HasPrefix(a, "-") })
		if len(services) == 0 {
			services = []string{"app", "db"}
		}
		for _, svc := range services {
			appendLine(dir, "started", svc)
		}
		if err := os.WriteFile(filepath.Join(dir, "override"), []byte(files[len(files)-1]), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// appendLine appends line to dir/name and returns how many lines it has.
func appendLine(dir, name, line string) int {
	path := filepath.Join(dir, name)
	old, _ := os.ReadFile(path)
	data := append(old, line+"\n"...)
	_ = os.WriteFile(path, data, 0o644)
	return strings.Count(string(data), "\n")
}

// platform is the fake Docker Engine beside fakeCLI: a service's
// container is <service>-<how many ups started it>, running, and the
// target's runs with the CPU limit and variables of the last override
// the CLI got. Wedged, every call accepts and never answers before its
// context ends, as a dockerd stuck on a frozen container does.
type platform struct {
	engine.Engine // a call the stack is not expected to make panics
	dir           string
	project       string
	wedged        atomic.Bool
}

// stuck blocks until ctx ends when the platform is wedged.
func (p *platform) stuck(ctx context.Context) error {
	if !p.wedged.Load() {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (p *platform) Ping(ctx context.Context) (types.Ping, error) { return types.Ping{}, p.stuck(ctx) }
func (p *platform) Info(ctx context.Context) (system.Info, error) {
	return system.Info{NCPU: 8, ServerVersion: "28.0.0"}, p.stuck(ctx)
}

func (p *platform) ContainerList(ctx context.Context, o container.ListOptions) ([]container.Summary, error) {
	if err := p.stuck(ctx); err != nil {
		return nil, err
	}
	if o.Filters.Contains("status") { // thaw's: nothing is paused
		return nil, nil
	}
	started, _ := os.ReadFile(filepath.Join(p.dir, "started"))
	var out []container.Summary
	for _, svc := range []string{"app", "db"} {
		n := strings.Count(string(started), svc+"\n")
		labels := map[string]string{projectLabel: p.project, serviceLabel: svc, oneoffLabel: "False"}
		if n == 0 || !o.Filters.MatchKVList("label", labels) {
			continue
		}
		out = append(out, container.Summary{ID: fmt.Sprintf("%s-%d", svc, n), Labels: labels, Created: int64(n)})
	}
	return out, nil
}

func (p *platform) ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error) {
	if err := p.stuck(ctx); err != nil {
		return container.InspectResponse{}, err
	}
	svc, gen, _ := strings.Cut(id, "-")
	n, _ := strconv.Atoi(gen)
	c := container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{ID: id, HostConfig: &container.HostConfig{}, State: &container.State{
			Status: container.StateRunning, Running: true, StartedAt: time.Unix(int64(n), 0).UTC().Format(time.RFC3339Nano)}},
		Config: &container.Config{},
	}
	if svc == "app" {
		cpus, env, err := p.override()
		if err != nil {
			return c, err
		}
		c.HostConfig.NanoCPUs = int64(cpus * 1e9)
		for k, v := range env {
			c.Config.Env = append(c.Config.Env, k+"="+v)
		}
	}
	return c, nil
}

// override reads the target's CPU limit and variables from the last
// override the CLI got.
func (p *platform) override() (float64, map[string]string, error) {
	path, err := os.ReadFile(filepath.Join(p.dir, "override"))
	if err != nil {
		return 0, nil, err
	}
	data, err := os.ReadFile(string(path))
	if err != nil {
		return 0, nil, err
	}
	var o struct {
		Services map[string]struct {
			Deploy struct {
				Resources struct {
					Limits struct {
						CPUs string `yaml:"cpus"`
					} `yaml:"limits"`
				} `yaml:"resources"`
			} `yaml:"deploy"`
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &o); err != nil {
		return 0, nil, err
	}
	app := o.Services["app"]
	cpus, err := strconv.ParseFloat(app.Deploy.Resources.Limits.CPUs, 64)
	return cpus, app.Environment, err
}

func (p *platform) ContainerLogs(ctx context.Context, _ string, _ container.LogsOptions) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader("")), p.stuck(ctx)
}

func (p *platform) ImageInspect(ctx context.Context, _ string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	return image.InspectResponse{ID: "sha256:1"}, p.stuck(ctx)
}
func (p *platform) ContainerRemove(ctx context.Context, _ string, _ container.RemoveOptions) error {
	return p.stuck(ctx)
}
func (p *platform) NetworkList(ctx context.Context, _ network.ListOptions) ([]network.Summary, error) {
	return nil, p.stuck(ctx)
}
func (p *platform) VolumeList(ctx context.Context, _ volume.ListOptions) (volume.ListResponse, error) {
	return volume.ListResponse{}, p.stuck(ctx)
}

// Events streams nothing: as the real client, it returns at once and
// reports the end of ctx on its error channel.
func (p *platform) Events(ctx context.Context, _ events.ListOptions) (<-chan events.Message, <-chan error) {
	errs := make(chan error, 1)
	go func() {
		<-ctx.Done()
		errs <- ctx.Err()
	}()
	return make(chan events.Message), errs
}

// newPlatform is a compose stack of app (the target, at url) and db
// over a fake engine and CLI, answering; hang (a number of the up that
// never answers, or "all") wedges the CLI.
func newPlatform(t *testing.T, url, hang string) (*Stack, *platform) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "docker-compose.yml")
	yml := "services:\n  app:\n    image: app\n    deploy:\n      resources:\n        limits:\n          cpus: \"1\"\n  db:\n    image: db\n"
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hang"), []byte(hang), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &platform{dir: dir}
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "app",
		RunID: "bound", ReadyURL: url + "/health", SweptEnv: []string{"W", "P", "N"}, Env: sweep.Env{fakeCLIEnv + "=" + dir}},
		Engine: p, CLI: CLI{Kind: V2, Prefix: []string{os.Args[0]}}})
	if err != nil {
		t.Fatal(err)
	}
	p.project = s.Project()
	return s, p
}

// TestStackCallsEndWithTheirContext: whichever call of the stack meets an
// engine or a compose CLI that accepts it and never answers, the call
// returns soon after its context ends, with an error naming what it was
// doing.
func TestStackCallsEndWithTheirContext(t *testing.T) {
	t.Parallel()
	target := boundtest.Target(t)
	cfg := func(t *testing.T) sweep.TargetConfig {
		return sweep.TargetConfig{Dir: t.TempDir(), CPUs: 1, Env: map[string]string{"W": "1", "P": "2", "N": "c"}}
	}
	for _, tc := range []struct {
		name, wedge, want string
		call              func(ctx context.Context, cfg sweep.TargetConfig, s *Stack) error
	}{
		{"new, the CLI", "cli", "compose config --services did not answer", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := New(ctx, s.opts)
			return err
		}},
		{"new, the engine", "engine", "docker engine unreachable", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := New(ctx, s.opts)
			return err
		}},
		{"start dependencies, the CLI", "cli", "compose up db", func(ctx context.Context, cfg sweep.TargetConfig, s *Stack) error {
			return s.StartDeps(ctx, cfg, time.Hour)
		}},
		{"apply, the engine", "engine", "compose up app: list paused containers", func(ctx context.Context, cfg sweep.TargetConfig, s *Stack) error {
			return s.Apply(ctx, cfg)
		}},
		{"apply, the CLI", "cli", "compose up app", func(ctx context.Context, cfg sweep.TargetConfig, s *Stack) error {
			return s.Apply(ctx, cfg)
		}},
		{"ready wait", "engine", "wait for app: context deadline exceeded (last: list containers of app", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			return s.WaitReady(ctx, time.Hour)
		}},
		{"read back", "engine", "list containers of app", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := s.ReadBack(ctx)
			return err
		}},
		{"logs", "engine", "list containers of app", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := s.Logs(ctx, 10)
			return err
		}},
		{"watch", "engine", "look at the stack: list containers of sweepbound", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := s.Watch(ctx)
			return err
		}},
		{"down", "engine", "list paused containers", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			return s.Down(ctx)
		}},
		{"engine info", "engine", "engine info", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := s.Info(ctx)
			return err
		}},
		{"containers", "engine", "list containers of sweepbound", func(ctx context.Context, _ sweep.TargetConfig, s *Stack) error {
			_, err := s.Containers(ctx)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, p := newPlatform(t, target, "")
			if tc.wedge == "engine" {
				p.wedged.Store(true)
			} else if err := os.WriteFile(filepath.Join(p.dir, "hang"), []byte("all"), 0o644); err != nil {
				t.Fatal(err)
			}
			cell := cfg(t)
			boundtest.Call(t, tc.want, func(ctx context.Context) error { return tc.call(ctx, cell, s) })
		})
	}
}

// TestRunnerOverComposeBoundsAWedgedApply: the runner over a compose
// stack whose CLI never answers the second cell's compose up fails that
// cell within the call timeout and stops at the failure limit, the first
// cell kept; a resume over a CLI that answers goes on.
func TestRunnerOverComposeBoundsAWedgedApply(t *testing.T) {
	t.Parallel()
	target := boundtest.Target(t)
	spec := boundtest.Spec(target, 5*time.Second, 5*time.Second) // a compose up is a process to start
	dir := t.TempDir()
	s, _ := newPlatform(t, target, "3") // the dependencies' up, the first cell's, the second's
	boundtest.WedgedApply(t, spec, s, dir)
	s, _ = newPlatform(t, target, "")
	boundtest.Resume(t, spec, s, dir)
}
