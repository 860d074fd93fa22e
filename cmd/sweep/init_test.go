package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/scaffold"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep"
)

// initInto runs sweep init with args, writing into a new folder, and
// returns the paths of the sweep.yaml and scenario it wrote.
func initInto(t *testing.T, args ...string) (config, scen string) {
	t.Helper()
	dir := t.TempDir()
	config, scen = filepath.Join(dir, "sweep.yaml"), filepath.Join(dir, "scenario.yaml")
	code, out, stderr := runCLIEnv(t, nil, append([]string{"init", "--out", config}, args...)...)
	if code != 0 || !strings.Contains(out, "wrote "+config+" and "+scen) {
		t.Fatalf("sweep init %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
	}
	return config, scen
}

// checkSpec resolves a config file as sweep check does (in an empty
// environment) and validates the spec as a check's session would before
// it starts anything: the spec, the strategy, the check's cut of it.
func checkSpec(t *testing.T, config string) sweep.Spec {
	t.Helper()
	root := newRootCmd(t.Context(), io.Discard, io.Discard)
	cmd := &cobra.Command{Use: "probe", RunE: func(*cobra.Command, []string) error { return nil }}
	cmd.SetContext(withEnv(t.Context(), nil))
	f := newSpecFlags(cmd.Flags(), cmdCheck)
	root.AddCommand(cmd) // the other commands' keys (baseline) are passed over
	if err := cmd.ParseFlags([]string{"--config", config}); err != nil {
		t.Fatal(err)
	}
	spec, err := f.resolve(cmd)
	if err == nil {
		err = spec.Validate()
	}
	if err == nil {
		err = halving.CheckSpec(spec)
	}
	if err == nil {
		_, _, err = session.CheckSpec(spec, t.TempDir())
	}
	if err != nil {
		t.Fatalf("%s: %s", config, message(err))
	}
	return spec
}

// TestInitStacks: sweep init on the demo's and the examples' compose
// files writes a sweep.yaml that check and plan take unchanged: no TODO
// left, a spec that validates, its target and pool variable's service in
// the compose files, the settings of today as plan's baseline, and a
// scenario the built-in driver parses.
func TestInitStacks(t *testing.T) {
	t.Parallel()
	for _, stack := range []string{"compose/demo", "examples/node", "examples/php", "examples/jvm", "examples/orders"} {
		t.Run(stack, func(t *testing.T) {
			t.Parallel()
			config, scen := initInto(t, "--compose", filepath.Join(repoRoot(t), stack, "docker-compose.yaml"))
			spec := checkSpec(t, config)
			base, err := compose.ReadBase(spec.Compose, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			svc, _, _ := strings.Cut(spec.PoolEnv, ":")
			if !slices.Contains(base.Services, spec.Service) || strings.Contains(spec.PoolEnv, ":") && !slices.Contains(base.Services, svc) {
				t.Errorf("service %q, pool-env %q: not in the stack's services %v", spec.Service, spec.PoolEnv, base.Services)
			}
			if spec.URL == "" || spec.DBDSN != "" {
				t.Errorf("spec %+v: want a URL and no DSN (its password is the environment's)", spec)
			}
			data, err := os.ReadFile(config)
			if err != nil {
				t.Fatal(err)
			}
			if todos := scaffold.TODOs(config, data); len(todos) > 0 {
				t.Errorf("TODO lines left: %q", todos)
			}
			if code, out, stderr := runCLIEnv(t, nil, "plan", "--config", config); code != 0 || !strings.Contains(out, sweep.BaselineSuffix) {
				t.Errorf("sweep plan --config: exit %d, want the baseline's cells: %s%s", code, out, stderr)
			}
			if _, err := scenario.Load(scen); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestInitManifests: on the demo's manifests, a directory of them, init
// writes a Kubernetes sweep.yaml whose target is a Deployment of them
// with a container; check refuses it while its TODO line (the load's
// image) is left, naming the line, and takes it once the line is gone.
func TestInitManifests(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "k8s")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(t), "internal", "k8sfixture", "manifests"))); err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{"pods.yaml", "decoy.yaml"} { // the fixture's own pods and its second app
		if err := os.Remove(filepath.Join(dir, other)); err != nil {
			t.Fatal(err)
		}
	}
	config, _ := initInto(t, "--manifests", dir)
	code, _, stderr := runCLIEnv(t, nil, "check", "--config", config)
	if code != exitBadInput || !strings.Contains(stderr, config+":") || !strings.Contains(stderr, "TODO: load-image") {
		t.Fatalf("check with a TODO left: exit %d, %q; want 2 naming the line", code, stderr)
	}
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.Contains(line, "TODO:") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(config, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := checkSpec(t, config)
	if !spec.Kubernetes || spec.Service != "app" || spec.URL != "http://app:8080" {
		t.Errorf("spec %+v, want the Deployment app at http://app:8080 on Kubernetes", spec)
	}
	if _, err := kube.TargetContainer(spec.Manifests, spec.Service, spec.Container); err != nil {
		t.Error(message(err))
	}
}

// TestInitHAR: with a recording, the scenario's steps are its requests,
// an id of an earlier response captured and templated.
func TestInitHAR(t *testing.T) {
	t.Parallel()
	_, scen := initInto(t, "--compose", filepath.Join(repoRoot(t), "compose", "demo", "docker-compose.yaml"),
		"--har", filepath.Join(repoRoot(t), "scaffold", "testdata", "orders.har"))
	data, err := os.ReadFile(scen)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"json: $.order_id", `url: "/api/orders/{{ order_id }}"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the scenario does not hold %q:\n%s", want, data)
		}
	}
	if _, err := scenario.Load(scen); err != nil {
		t.Error(err)
	}
}

// TestInitRefuses: init never overwrites a file (neither is written
// then), wants a stack, and says so of a stack without PostgreSQL.
func TestInitRefuses(t *testing.T) {
	t.Parallel()
	demo := filepath.Join(repoRoot(t), "compose", "demo", "docker-compose.yaml")
	noPG := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(noPG, []byte("services:\n  web: {image: \"nginx:1\", ports: [\"8080:80\"]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		exist string // the file there before
		args  []string
		want  []string
	}{
		{"sweep.yaml exists", "sweep.yaml", []string{"--compose", demo}, []string{"--out: ", "sweep.yaml exists", "never overwrites", "--out "}},
		{"scenario exists", "scenario.yaml", []string{"--compose", demo}, []string{"--scenario: ", "scenario.yaml exists"}},
		{"no stack", "", nil, []string{"--compose: no stack"}},
		{"both stacks", "", []string{"--compose", demo, "--manifests", demo}, []string{"--manifests: "}},
		{"no PostgreSQL", "", []string{"--compose", noPG}, []string{"--compose: ", noPG, "no PostgreSQL service", "postgres*"}},
		{"no HAR", "", []string{"--compose", demo, "--har", "/nonexistent.har"}, []string{"--har: cannot read /nonexistent.har"}},
		{"into the manifests", "", []string{"--manifests", "%DIR%"}, []string{"--out: ", "the manifests sweep applies"}},
		{"no such folder", "", []string{"--compose", demo, "--out", "%DIR%/none/sweep.yaml"}, []string{"--out: ", "none/sweep.yaml: no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.exist != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.exist), []byte("mine\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"init", "--out", filepath.Join(dir, "sweep.yaml")}, tc.args...)
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "%DIR%", dir)
			}
			code, _, stderr := runCLIEnv(t, nil, args...)
			for _, want := range tc.want {
				if code != exitBadInput || !strings.Contains(stderr, want) {
					t.Errorf("exit %d, %q; want 2 saying %q", code, stderr, want)
				}
			}
			ents, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tc.exist == "" && len(ents) > 0 || tc.exist != "" && len(ents) != 1 {
				t.Errorf("the folder holds %d files after the refusal", len(ents))
			}
			if data, err := os.ReadFile(filepath.Join(dir, tc.exist)); tc.exist != "" && string(data) != "mine\n" {
				t.Errorf("%s was changed: %q, %v", tc.exist, data, err)
			}
		})
	}
}

// TestInitScenarioTODO: sweep.yaml names the scenario init wrote beside
// it, and check refuses that scenario while its TODO line (the skeleton's
// one GET, to replace) is left, naming --scenario and the line.
func TestInitScenarioTODO(t *testing.T) {
	t.Parallel()
	config, scen := initInto(t, "--compose", filepath.Join(repoRoot(t), "compose", "demo", "docker-compose.yaml"))
	data, err := os.ReadFile(config)
	if err != nil || !strings.Contains(string(data), "\nscenario: "+filepath.Base(scen)+"\n") {
		t.Fatalf("sweep.yaml does not name %s (%v):\n%s", filepath.Base(scen), err, data)
	}
	code, _, stderr := runCLIEnv(t, nil, "check", "--config", config)
	if code != exitBadInput || !strings.Contains(stderr, "--scenario") || !strings.Contains(stderr, scen+":") ||
		!strings.Contains(stderr, "TODO: replace it") {
		t.Errorf("check with the skeleton's TODO left: exit %d, %q; want 2 naming --scenario and the line", code, stderr)
	}
}
