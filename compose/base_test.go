package compose

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// loadCase is a set of base files under testdata/load, as sweep passes
// them with -f.
type loadCase struct {
	name  string
	files []string
}

var loadCases = []loadCase{
	{"interp", []string{"interp/compose.yaml"}},
	{"extends", []string{"extends/compose.yaml"}},
	{"merge", []string{"merge/a.yaml", "merge/b.yaml"}},
	{"include", []string{"include/compose.yaml"}},
	{"profiles", []string{"profiles/compose.yaml"}},
	{"deploymem", []string{"deploymem/compose.yaml"}},
}

func (c loadCase) paths() []string {
	var out []string
	for _, f := range c.files {
		out = append(out, filepath.Join("testdata", "load", f))
	}
	return out
}

// unsetenv unsets names for the test (restored after it).
func unsetenv(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		t.Setenv(n, "")
		if err := os.Unsetenv(n); err != nil {
			t.Fatal(err)
		}
	}
}

// loadOf loads files as ReadBase does and returns the project.
func loadOf(t *testing.T, paths ...string) *types.Project {
	t.Helper()
	l, err := load(t.Context(), paths, "sweepr1", sweep.Env(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	return l.project
}

func readBase(t *testing.T, paths ...string) Base {
	t.Helper()
	b, err := ReadBase(paths, "sweepr1", sweep.Env(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadBaseInterpolates: `${VAR:-default}` takes the environment's
// value, else the .env next to the first file (not the working
// directory's), else the default; the project is named and rooted as the
// compose CLI will name and root it.
func TestReadBaseInterpolates(t *testing.T) {
	paths := []string{filepath.Join("testdata", "load", "interp", "compose.yaml")}
	unsetenv(t, "WEB_CPUS", "WEB_IMAGE", "DB_CPUS", "COMPOSE_ENV_FILES", "COMPOSE_PROFILES")
	p := loadOf(t, paths...)
	web, db := p.Services["web"], p.Services["db"]
	if web.CPUS != 1.5 || web.Image != "sweep-demoapp:dotenv" || db.Deploy.Resources.Limits.NanoCPUs != 1.25 {
		t.Errorf("defaults and .env: web cpus %g image %q, db cpus %g; want 1.5, sweep-demoapp:dotenv, 1.25",
			web.CPUS, web.Image, db.Deploy.Resources.Limits.NanoCPUs)
	}
	dir, err := filepath.Abs(filepath.Dir(paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "sweepr1" || p.WorkingDir != dir {
		t.Errorf("project %q in %s, want sweepr1 in %s", p.Name, p.WorkingDir, dir)
	}
	unsetenv(t, "COMPOSE_PROJECT_NAME")
	if l, err := load(t.Context(), paths, "", sweep.Env(os.Environ())); err != nil || l.project.Name != "interp" {
		t.Errorf("without a name: %v; want the project directory's name, interp", err)
	}
	b := readBase(t, paths...)
	if b.CPUAt["web"] != PlaceService || b.CPUAt["db"] != PlaceDeploy || b.Images["web"] != "sweep-demoapp:dotenv" {
		t.Errorf("base = %+v; want web's limit at the service, db's under deploy", b)
	}

	t.Setenv("WEB_CPUS", "0.75")
	t.Setenv("WEB_IMAGE", "sweep-demoapp:env")
	t.Setenv("DB_CPUS", "3")
	p = loadOf(t, paths...)
	web, db = p.Services["web"], p.Services["db"]
	if web.CPUS != 0.75 || web.Image != "sweep-demoapp:env" || db.Deploy.Resources.Limits.NanoCPUs != 3 {
		t.Errorf("environment: web cpus %g image %q, db cpus %g; want 0.75, sweep-demoapp:env, 3",
			web.CPUS, web.Image, db.Deploy.Resources.Limits.NanoCPUs)
	}
}

// TestReadBaseHidesInterpolatedValues: a value from the environment that
// compose cannot parse is not quoted in the error.
func TestReadBaseHidesInterpolatedValues(t *testing.T) {
	const secret = "hunter2-password"
	t.Setenv("WEB_CPUS", secret)
	_, err := ReadBase([]string{filepath.Join("testdata", "load", "interp", "compose.yaml")}, "sweepr1", sweep.Env(os.Environ()))
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) || bad.Field != "compose" {
		t.Fatalf("err = %v, want a bad input of the compose field", err)
	}
	if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "services.web.cpus") {
		t.Errorf("err = %q; want the field without the value", err)
	}
}

func TestSecretsRedact(t *testing.T) {
	t.Parallel()
	s := &secrets{}
	for _, v := range []string{"pw", "pw-long", "pw"} {
		s.add(v)
	}
	got := s.redact(`dsn "user:pw-long@db" and "pw"`)
	if want := `dsn "user:***@db" and "***"`; got != want {
		t.Errorf("redact = %q, want %q", got, want)
	}
	if got := (Base{}).redact("pw"); got != "pw" {
		t.Errorf("Base without secrets redacts %q", got)
	}
}

// TestReadBaseExtendsMergesIncludes: extends, two -f files and include
// give the services, the CPU limit's place and the values compose
// computes.
func TestReadBaseExtendsMergesIncludes(t *testing.T) {
	unsetenv(t, "COMPOSE_PROFILES")
	cases := []struct {
		name     string
		services []string
		place    Place
		cpus     float32
		env      map[string]string
	}{
		{"extends", []string{"db", "web"}, PlaceDeploy, 1.5, map[string]string{"WEB_THREADS": "2", "DB_POOL": "4"}},
		{"merge", []string{"db", "web"}, PlaceService, 2, map[string]string{"WEB_THREADS": "1", "DB_POOL": "8"}},
		{"include", []string{"db", "web"}, PlaceService, 1, nil},
		{"profiles", []string{"web"}, PlaceService, 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			paths := caseNamed(t, c.name).paths()
			b := readBase(t, paths...)
			if !slices.Equal(b.Services, c.services) || b.CPUAt["web"] != c.place {
				t.Errorf("services %v, web's limit at %v; want %v at %v", b.Services, b.CPUAt["web"], c.services, c.place)
			}
			web := loadOf(t, paths...).Services["web"]
			cpus := web.CPUS
			if c.place == PlaceDeploy {
				cpus = float32(web.Deploy.Resources.Limits.NanoCPUs)
			}
			if cpus != c.cpus {
				t.Errorf("web cpus = %g, want %g", cpus, c.cpus)
			}
			for k, v := range c.env {
				if got := web.Environment[k]; got == nil || *got != v {
					t.Errorf("web env %s = %v, want %s", k, got, v)
				}
			}
		})
	}
	t.Setenv("COMPOSE_PROFILES", "debug")
	if b := readBase(t, caseNamed(t, "profiles").paths()...); !slices.Equal(b.Services, []string{"debug", "web"}) {
		t.Errorf("COMPOSE_PROFILES=debug: services %v, want debug and web", b.Services)
	}
}

func caseNamed(t *testing.T, name string) loadCase {
	t.Helper()
	i := slices.IndexFunc(loadCases, func(c loadCase) bool { return c.name == name })
	if i < 0 {
		t.Fatalf("no load case %q", name)
	}
	return loadCases[i]
}

// TestOverrideOfLoadedBases renders the override of each loaded base.
func TestOverrideOfLoadedBases(t *testing.T) {
	unsetenv(t, "WEB_CPUS", "WEB_IMAGE", "DB_CPUS", "COMPOSE_ENV_FILES", "COMPOSE_PROFILES")
	cfg := sweep.TargetConfig{CPUs: 0.5, Env: map[string]string{"WEB_THREADS": "1"}}
	for _, c := range loadCases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Override(readBase(t, c.paths()...), sweep.RunLabels{ID: "r1"}, "web", cfg)
			if err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "load", c.name+".golden.yaml"), got)
		})
	}
}

// TestReadBaseEnvFiles: COMPOSE_ENV_FILES replaces the .env next to the
// first file, as in compose v2; a line of an env file that cannot be
// parsed is not quoted (it may hold a password).
func TestReadBaseEnvFiles(t *testing.T) {
	unsetenv(t, "WEB_CPUS", "WEB_IMAGE", "DB_CPUS", "COMPOSE_PROFILES")
	paths := []string{filepath.Join("testdata", "load", "interp", "compose.yaml")}
	dir := t.TempDir()
	alt := filepath.Join(dir, "alt.env")
	if err := os.WriteFile(alt, []byte("WEB_IMAGE=sweep-demoapp:alt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("COMPOSE_ENV_FILES", alt)
	p := loadOf(t, paths...)
	if web, db := p.Services["web"], p.Services["db"]; web.Image != "sweep-demoapp:alt" || db.Deploy.Resources.Limits.NanoCPUs != 2 {
		t.Errorf("COMPOSE_ENV_FILES: web image %q, db cpus %g; want sweep-demoapp:alt and the default 2 (no .env)",
			web.Image, db.Deploy.Resources.Limits.NanoCPUs)
	}

	if err := os.WriteFile(alt, []byte("WEB_IMAGE=x\nPASSWORD=\"hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadBase(paths, "sweepr1", sweep.Env(os.Environ()))
	if !errors.Is(err, sweep.ErrBadInput) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "alt.env: line ") {
		t.Errorf("bad env file: err = %v; want bad input naming the file and line without the value", err)
	}
}
