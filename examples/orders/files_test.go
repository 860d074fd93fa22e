package main

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/kube"
)

// knobs are the variables sweep sets on the service, as sweep.yaml names
// them; the compose file and the Kubernetes manifests must give each a
// value the service reads.
var knobs = []string{"ORDERS_WORKERS", "ORDERS_DB_POOL", "ORDERS_INSTANCE"}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestSweepFileNamesTheKnobs: sweep.yaml sweeps the service's own
// variables, polls its /healthz, resets with reset.sql, loads it with
// scenario.yaml, and the compose
// file's target sets all of them and the DSN.
func TestSweepFileNamesTheKnobs(t *testing.T) {
	t.Parallel()
	var spec map[string]any
	readYAML(t, "sweep.yaml", &spec)
	got := []any{spec["web-env"], spec["pool-env"], spec["name-env"], spec["ready-path"], spec["db-reset-sql"], spec["service"], spec["scenario"]}
	want := []any{"ORDERS_WORKERS", "ORDERS_DB_POOL", "ORDERS_INSTANCE", "/healthz", "reset.sql", "app", "scenario.yaml"}
	if !slices.Equal(got, want) {
		t.Errorf("sweep.yaml: web-env, pool-env, name-env, ready-path, db-reset-sql, service, scenario = %v, want %v", got, want)
	}
	var stack struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	readYAML(t, "docker-compose.yaml", &stack)
	env := stack.Services["app"].Environment
	for _, k := range append(knobs, "ORDERS_DSN") {
		if env[k] == "" {
			t.Errorf("docker-compose.yaml: the app sets no %s (environment %v)", k, env)
		}
	}
	if _, err := loadConfig(func(k string) string { return env[k] }); err != nil {
		t.Errorf("docker-compose.yaml's environment: %v", err)
	}
}

// TestManifests: k8s/ is what the Kubernetes backend reads (every object
// of a kind it keeps to the run's namespace), and its target Deployment
// app has one container setting the knobs, a CPU limit equal to its
// request and a readiness probe on /healthz.
func TestManifests(t *testing.T) {
	t.Parallel()
	objs, err := kube.ReadManifests([]string{"k8s"})
	if err != nil {
		t.Fatalf("ReadManifests: %v", err)
	}
	var refs []string
	for _, o := range objs {
		refs = append(refs, o.GetKind()+"/"+o.GetName())
	}
	if want := []string{"Service/db", "Deployment/db", "Service/app", "Deployment/app"}; !slices.Equal(refs, want) {
		t.Fatalf("objects %v, want %v", refs, want)
	}
	var app struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Env       []struct{ Name, Value string }
						Resources struct{ Requests, Limits map[string]string }
						Readiness struct {
							HTTPGet struct{ Path string } `json:"httpGet"`
						} `json:"readinessProbe"`
					}
				}
			}
		}
	}
	b, err := objs[3].MarshalJSON()
	if err == nil {
		err = json.Unmarshal(b, &app)
	}
	if err != nil || len(app.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("Deployment/app: %v, %d containers", err, len(app.Spec.Template.Spec.Containers))
	}
	c := app.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if _, err := loadConfig(func(k string) string { return env[k] }); err != nil || env[knobs[0]] == "" || env[knobs[1]] == "" || env[knobs[2]] == "" {
		t.Errorf("Deployment/app's environment %v: %v; want %v set", env, err, knobs)
	}
	if c.Resources.Limits["cpu"] == "" || c.Resources.Limits["cpu"] != c.Resources.Requests["cpu"] || c.Readiness.HTTPGet.Path != "/healthz" {
		t.Errorf("Deployment/app: resources %+v, readiness path %q; want a CPU limit = request and /healthz", c.Resources, c.Readiness.HTTPGet.Path)
	}
}
