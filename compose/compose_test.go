package compose

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

func TestDetect(t *testing.T) {
	t.Parallel()
	errFail := errors.New("exit status 1")
	cases := []struct {
		name    string
		want    string // SWEEP_COMPOSE_CLI
		v2      error
		onPath  []string
		wantCLI CLI
		wantErr error
	}{
		{"v2 plugin", "", nil, []string{"docker", "docker-compose"},
			CLI{Kind: V2, Prefix: []string{"/bin/docker", "compose"}}, nil},
		{"v1 when the plugin fails", "", errFail, []string{"docker", "docker-compose"},
			CLI{Kind: V1, Prefix: []string{"/bin/docker-compose"}}, nil},
		{"v1 without docker", "", nil, []string{"docker-compose"},
			CLI{Kind: V1, Prefix: []string{"/bin/docker-compose"}}, nil},
		{"neither", "", errFail, []string{"docker"}, CLI{}, ErrNoComposeCLI},
		{"v1 asked though v2 works", "v1", nil, []string{"docker", "docker-compose"},
			CLI{Kind: V1, Prefix: []string{"/bin/docker-compose"}}, nil},
		{"v1 asked, missing", "v1", nil, []string{"docker"}, CLI{}, ErrNoComposeCLI},
		{"v2 asked", "v2", nil, []string{"docker", "docker-compose"},
			CLI{Kind: V2, Prefix: []string{"/bin/docker", "compose"}}, nil},
		{"v2 asked, plugin fails", "v2", errFail, []string{"docker", "docker-compose"}, CLI{}, ErrNoComposeCLI},
		{"unknown choice", "v3", nil, []string{"docker", "docker-compose"}, CLI{}, ErrNoComposeCLI},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runProbe := func([]string) error { return c.v2 }
			lookPath := func(name string) (string, error) {
				if slices.Contains(c.onPath, name) {
					return "/bin/" + name, nil
				}
				return "", exec.ErrNotFound
			}
			got, err := detect(c.want, runProbe, lookPath)
			if !errors.Is(err, c.wantErr) {
				t.Fatalf("err = %v, want %v", err, c.wantErr)
			}
			if got.Kind != c.wantCLI.Kind || !slices.Equal(got.Prefix, c.wantCLI.Prefix) {
				t.Errorf("got %+v, want %+v", got, c.wantCLI)
			}
		})
	}
}

func TestArgv(t *testing.T) {
	t.Parallel()
	v1 := CLI{Kind: V1, Prefix: []string{"docker-compose"}}
	v2 := CLI{Kind: V2, Prefix: []string{"docker", "compose"}}
	files := []string{"a.yaml", "b.yaml", "cell/override.yaml"}
	inv := Invocation{Project: sweep.ProjectName("2026-05-07T12:00Z"), Files: files}
	compat := inv
	compat.Compat = true
	cases := []struct {
		name string
		got  []string
		want string
	}{
		{"v2 up all", v2.Argv(inv, UpAll()...),
			"docker compose -p sweep20260507t1200z -f a.yaml -f b.yaml -f cell/override.yaml up -d"},
		{"v2 ignores compat", v2.Argv(compat, UpTarget("web")...),
			"docker compose -p sweep20260507t1200z -f a.yaml -f b.yaml -f cell/override.yaml up -d --no-deps --force-recreate web"},
		{"v1 compat up target", v1.Argv(compat, UpTarget("web")...),
			"docker-compose --compatibility -p sweep20260507t1200z -f a.yaml -f b.yaml -f cell/override.yaml up -d --no-deps --force-recreate web"},
		{"v1 down", v1.Argv(Invocation{Project: "sweepx", Files: files[:1]}, Down()...),
			"docker-compose -p sweepx -f a.yaml down -v --remove-orphans --timeout 5"},
		{"v1 config", v1.Argv(Invocation{Project: "sweepx", Files: files[:2]}, Config()...),
			"docker-compose -p sweepx -f a.yaml -f b.yaml config"},
		{"v2 config services", v2.Argv(Invocation{Project: "sweepx", Files: files[:1]}, ConfigServices()...),
			"docker compose -p sweepx -f a.yaml config --services"},
		{"v1 version", v1.VersionArgv(), "docker-compose version --short"},
		{"v2 version", v2.VersionArgv(), "docker compose version --short"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := join(c.got); got != c.want {
				t.Errorf("argv\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func join(argv []string) string {
	out := ""
	for i, a := range argv {
		if i > 0 {
			out += " "
		}
		out += a
	}
	return out
}

func TestOverrideGolden(t *testing.T) {
	t.Parallel()
	cfg := sweep.TargetConfig{
		CPUs:   0.5,
		Env:    map[string]string{"WEB_THREADS": "1", "DB_POOL": "2", "INSTANCE": "cpu_0.5__web_1__db_2", "PW": "a$b"},
		Labels: map[string]string{"sweep.cell": "cpu_0.5__web_1__db_2"},
	}
	cases := []struct {
		name  string
		bases []string
		cfg   sweep.TargetConfig
	}{
		{"v24-cpus", []string{"v24-cpus"}, cfg},
		{"deploy", []string{"deploy"}, cfg},
		{"v3-none", []string{"v3-none"}, cfg},
		{"split", []string{"split-a", "split-b"}, cfg},
		{"no-cpus", []string{"v24-cpus"}, sweep.TargetConfig{Env: map[string]string{"X": "1"}}},
		{"axes", []string{"v24-cpus"}, sweep.TargetConfig{CPUs: 1, Memory: "256m", CPUSet: "1",
			Env: map[string]string{"X": "1"}, ServiceEnv: map[string]map[string]string{"db": {"POOL_MODE": "session"}}}},
		{"axes-deploy", []string{"deploy"}, sweep.TargetConfig{CPUs: 1, Memory: "1g", Env: map[string]string{"X": "1"}}},
		// --pool-env db:DEFAULT_POOL_SIZE: the pool goes to db, recreated with the cell
		{"pool-service", []string{"v24-cpus"}, sweep.TargetConfig{CPUs: 0.5,
			Env:        map[string]string{"WEB_THREADS": "1", "INSTANCE": "cpu_0.5__web_1__db_2"},
			Labels:     map[string]string{"sweep.cell": "cpu_0.5__web_1__db_2"},
			ServiceEnv: map[string]map[string]string{"db": {"DEFAULT_POOL_SIZE": "2"}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base := testBase(t, c.bases...)
			run := sweep.RunLabels{ID: "r1"}
			if c.name == "axes" {
				run.Dir, run.Host = "/srv/runs/r1", "bench-1"
			}
			got, err := Override(base, run, "web", c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "override", c.name+".golden.yaml"), got)
		})
	}
}

// TestSettingsGolden pins the export's override: the CPU limit where each
// base keeps it (service cpus, deploy limits, both, or the version's
// default), the env, no labels on any service.
func TestSettingsGolden(t *testing.T) {
	t.Parallel()
	env := map[string]string{"WEB_THREADS": "22", "DB_POOL": "44"}
	header := "# settings of run r1\n"
	for _, c := range []struct {
		name  string
		bases []string
	}{
		{"v24-cpus", []string{"v24-cpus"}},
		{"deploy", []string{"deploy"}},
		{"v3-none", []string{"v3-none"}},
		{"split", []string{"split-a", "split-b"}},
		{"pool-service", []string{"v24-cpus"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cfg := sweep.TargetConfig{CPUs: 9, Env: env}
			if c.name == "pool-service" {
				// --pool-env db:DEFAULT_POOL_SIZE: the pool is the db service's
				cfg.Env = map[string]string{"WEB_THREADS": "22"}
				cfg.ServiceEnv = map[string]map[string]string{"db": {"DEFAULT_POOL_SIZE": "44"}}
			}
			got, err := Settings(testBase(t, c.bases...), "web", cfg, header)
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "override", c.name+".settings.golden.yaml"), got)
		})
	}
	base := testBase(t, "deploy")
	if _, err := Settings(base, "nope", sweep.TargetConfig{CPUs: 1, Env: env}, header); err == nil {
		t.Error("unknown service: want an error")
	}
	if _, err := Settings(base, "web", sweep.TargetConfig{CPUs: 1, Env: env,
		ServiceEnv: map[string]map[string]string{"nope": {"A": "1"}}}, header); err == nil {
		t.Error("unknown service of the pool: want an error")
	}
	if _, err := Settings(base, "web", sweep.TargetConfig{CPUs: 1, Env: map[string]string{"A": "1\n2"}}, header); !errors.Is(err, ErrBadEnv) {
		t.Errorf("newline in a value: err = %v, want ErrBadEnv", err)
	}
}

// testBase reads testdata/override/<name>.base.yaml for each name, in order.
func testBase(t *testing.T, names ...string) Base {
	t.Helper()
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join("testdata", "override", n+".base.yaml"))
	}
	base, err := ReadBase(paths, "sweepr1", sweep.Env(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	return base
}

func TestOverrideRefuses(t *testing.T) {
	t.Parallel()
	base := Base{Services: []string{"web"}}
	cases := []struct {
		name string
		cfg  sweep.TargetConfig
	}{
		{"newline in value", sweep.TargetConfig{Env: map[string]string{"A": "1\n2"}}},
		{"NUL in value", sweep.TargetConfig{Env: map[string]string{"A": "1\x002"}}},
		{"carriage return", sweep.TargetConfig{Env: map[string]string{"A": "1\r"}}},
		{"equals in name", sweep.TargetConfig{Env: map[string]string{"A=B": "1"}}},
		{"newline in label", sweep.TargetConfig{Labels: map[string]string{"sweep.cell": "a\nb"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Override(base, sweep.RunLabels{ID: "r1"}, "web", c.cfg); !errors.Is(err, ErrBadEnv) {
				t.Errorf("err = %v, want ErrBadEnv", err)
			}
		})
	}
	if _, err := Override(base, sweep.RunLabels{ID: "r1"}, "nope", sweep.TargetConfig{}); err == nil {
		t.Error("unknown service: want an error")
	}
}

func TestReadBase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		docs    []string
		version string
		place   Place
		wantErr bool
	}{
		{"version", []string{"version: '2.4'\nservices:\n  web: {image: x, cpus: 1}\n"}, "2.4", PlaceService, false},
		// Both compose CLIs refuse a version that is not a string.
		{"unquoted version", []string{"version: 2.4\nservices:\n  web: {image: x, cpus: 1}\n"}, "", 0, true},
		// A file compose-go reads as a model but cannot turn into a project.
		{"memory limit that is no size", []string{"services:\n  web: {image: x, cpus: 1, mem_limit: lots}\n"}, "", 0, true},
		{"deploy", []string{"services:\n  web:\n    image: x\n    deploy: {resources: {limits: {cpus: '1'}}}\n"},
			"", PlaceDeploy, false},
		{"later file adds", []string{"services:\n  web: {image: x, cpus: 1}\n",
			"services:\n  web:\n    deploy: {resources: {limits: {cpus: '1'}}}\n"}, "", PlaceService | PlaceDeploy, false},
		{"limit of 0 still places", []string{"services:\n  web:\n    image: x\n    deploy: {resources: {limits: {cpus: 0}}}\n"},
			"", PlaceDeploy, false},
		{"reset removes", []string{"services:\n  web: {image: x, cpus: 1}\n", "services:\n  web:\n    cpus: !reset null\n"},
			"", 0, false},
		// compose itself refuses a service with neither image nor build.
		{"null service", []string{"services:\n  web:\n"}, "", 0, true},
		{"v1 format", []string{"web:\n  image: x\n"}, "", 0, true},
		{"not yaml", []string{"services: [\n"}, "", 0, true},
		{"no services", []string{"volumes: {data: {}}\n"}, "", 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var paths []string
			for i, d := range c.docs {
				paths = append(paths, filepath.Join(dir, fmt.Sprintf("f%d.yml", i)))
				if err := os.WriteFile(paths[i], []byte(d), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			b, err := ReadBase(paths, "sweepr1", sweep.Env(os.Environ()))
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, c.wantErr)
			}
			if err != nil {
				var bad *sweep.BadInputError
				if !errors.As(err, &bad) || bad.Field != "compose" {
					t.Errorf("err = %#v, want a bad input of the compose field", err)
				}
				return
			}
			if b.Version != c.version || b.CPUAt["web"] != c.place {
				t.Errorf("got version %q place %v, want %q %v", b.Version, b.CPUAt["web"], c.version, c.place)
			}
		})
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "compose.yml")
	if err := os.WriteFile(file, []byte("services:\n  web:\n    image: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "broken.yml")
	if err := os.WriteFile(broken, []byte("services: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts Options
		want []string
	}{
		{"missing file", Options{StackOptions: sweep.StackOptions{Files: []string{file, "nope/compose.yml"}, Service: "web", RunID: "r1"}},
			[]string{"{compose}", "nope/compose.yml"}},
		{"no file", Options{StackOptions: sweep.StackOptions{Service: "web", RunID: "r1"}}, []string{"{compose}"}},
		{"run id without letters", Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "web", RunID: "--"}}, []string{"{run_id}"}},
		{"not yaml", Options{StackOptions: sweep.StackOptions{Files: []string{broken}, Service: "web", RunID: "r1"}}, []string{"{compose}", "broken.yml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(t.Context(), c.opts)
			if !errors.Is(err, sweep.ErrBadInput) {
				t.Fatalf("New = %v, want sweep.ErrBadInput", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}
