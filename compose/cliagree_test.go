package compose

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/sweep"
)

// TestReadBaseAgreesWithCLI reads each testdata/load case with ReadBase
// and with the compose CLI under test (`config`, as sweep runs it: -p and
// absolute -f files, the same environment): the services and where each
// keeps its CPU limit must agree. docker-compose v1 has no include and
// lists services of inactive profiles too.
func TestReadBaseAgreesWithCLI(t *testing.T) {
	testenv.SkipShort(t)
	t.Parallel()
	cli := composeCLI(t)
	for _, c := range loadCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if cli.Kind == V1 && c.name == "include" {
				t.Skip("docker-compose v1 has no include")
			}
			var files []string
			for _, p := range c.paths() {
				abs, err := filepath.Abs(p)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, abs)
			}
			base := readBase(t, files...)
			out, err := run(t.Context(), cli.Argv(Invocation{Project: "sweepr1", Files: files}, Config()...), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			var merged struct {
				Services map[string]any `yaml:"services"`
			}
			if err := yaml.Unmarshal(out, &merged); err != nil {
				t.Fatal(err)
			}
			services := slices.Sorted(maps.Keys(merged.Services))
			if cli.Kind == V2 && !slices.Equal(services, base.Services) || !subset(base.Services, services) {
				t.Errorf("%s lists %v, ReadBase %v", cli, services, base.Services)
			}
			for _, name := range base.Services {
				if got := cpuPlace(merged.Services[name]); got != base.CPUAt[name] {
					t.Errorf("%s: %s puts the CPU limit at %v, ReadBase at %v", name, cli, got, base.CPUAt[name])
				}
			}
			checkOverrideApplies(t, cli, base, files)
		})
	}
}

// checkOverrideApplies merges a cell's override after files, as Apply
// does, and checks that the CLI takes its CPU limit.
func checkOverrideApplies(t *testing.T, cli CLI, base Base, files []string) {
	t.Helper()
	data, err := Override(base, sweep.RunLabels{ID: "r1"}, "web", sweep.TargetConfig{CPUs: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	override := filepath.Join(t.TempDir(), "override.yaml")
	if err := os.WriteFile(override, data, 0o644); err != nil {
		t.Fatal(err)
	}
	inv := Invocation{Project: "sweepr1", Files: append(slices.Clip(files), override), Compat: base.NeedsCompat("web")}
	out, err := run(t.Context(), cli.Argv(inv, Config()...), nil, nil)
	if err != nil {
		t.Fatalf("%s refuses the override: %v", cli, err)
	}
	var merged struct {
		Services map[string]struct {
			CPUs   any `yaml:"cpus"`
			Deploy struct {
				Resources struct {
					Limits struct {
						CPUs any `yaml:"cpus"`
					} `yaml:"limits"`
				} `yaml:"resources"`
			} `yaml:"deploy"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(out, &merged); err != nil {
		t.Fatal(err)
	}
	web := merged.Services["web"]
	got := []string{fmt.Sprint(web.CPUs), fmt.Sprint(web.Deploy.Resources.Limits.CPUs)}
	if !slices.Contains(got, "0.5") || slices.ContainsFunc(got, func(v string) bool { return v != "0.5" && v != "<nil>" }) {
		t.Errorf("%s applies web's CPU limit as cpus %s, deploy cpus %s; want 0.5", cli, got[0], got[1])
	}
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
