package swarm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/sweep"
)

// specOfYAML translates service svc of a compose file with content y.
func specOfYAML(t *testing.T, y, svc string) (swarm.ServiceSpec, []string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-compose.yaml")
	if err := os.WriteFile(path, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := compose.ReadBase([]string{path}, "sweept", sweep.Env(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	return specOf("sweept", b.Model.Services[svc], map[string]string{"sweep.run": "t"}, "sweept_default")
}

func TestSpecOfTranslates(t *testing.T) {
	t.Parallel()
	spec, notices, err := specOfYAML(t, `
services:
  app:
    image: app:1
    cpus: 1.5
    command: ["serve", "--fast"]
    environment: {A: "1", B: two}
    ports: ["127.0.0.1:18080:8080"]
    tmpfs: [/scratch]
    restart: always
    mem_limit: 256m
    healthcheck: {test: ["CMD", "/app", "check"], interval: 500ms, retries: 3}
    deploy:
      endpoint_mode: vip
      placement: {constraints: [node.labels.role==app]}
`, "app")
	if err != nil {
		t.Fatal(err)
	}
	cs, lim := spec.TaskTemplate.ContainerSpec, spec.TaskTemplate.Resources.Limits
	checks := []struct {
		name string
		ok   bool
	}{
		{"name", spec.Name == "sweept_app"},
		{"labels", spec.Labels["sweep.run"] == "t" && cs.Labels["sweep.run"] == "t"},
		{"args", len(cs.Args) == 2 && cs.Args[0] == "serve"},
		{"env", len(cs.Env) == 2 && cs.Env[0] == "A=1" && cs.Env[1] == "B=two"},
		{"cpus", lim.NanoCPUs == 1_500_000_000},
		{"memory", lim.MemoryBytes == 256<<20},
		{"port", len(spec.EndpointSpec.Ports) == 1 && spec.EndpointSpec.Ports[0].PublishedPort == 18080 &&
			spec.EndpointSpec.Ports[0].PublishMode == swarm.PortConfigPublishModeIngress},
		{"vip", spec.EndpointSpec.Mode == swarm.ResolutionModeVIP},
		{"tmpfs", len(cs.Mounts) == 1 && cs.Mounts[0].Type == mount.TypeTmpfs && cs.Mounts[0].Target == "/scratch"},
		{"restart", spec.TaskTemplate.RestartPolicy.Condition == swarm.RestartPolicyConditionAny},
		{"health", cs.Healthcheck != nil && cs.Healthcheck.Interval == 500*time.Millisecond && cs.Healthcheck.Retries == 3},
		{"placement", len(spec.TaskTemplate.Placement.Constraints) == 1},
		{"alias", spec.TaskTemplate.Networks[0].Aliases[0] == "app"},
		{"stop-first", spec.UpdateConfig.Order == swarm.UpdateOrderStopFirst},
		{"host ip notice", len(notices) == 1},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s not translated: %+v %+v", c.name, spec, cs)
		}
	}
}

func TestSpecOfHostPortDNSRR(t *testing.T) {
	t.Parallel()
	spec, _, err := specOfYAML(t, `
services:
  db:
    image: pg
    deploy: {endpoint_mode: dnsrr}
    ports: [{target: 5432, published: "15432", mode: host}]
`, "db")
	if err != nil {
		t.Fatal(err)
	}
	p := spec.EndpointSpec.Ports[0]
	if spec.EndpointSpec.Mode != swarm.ResolutionModeDNSRR || p.PublishMode != swarm.PortConfigPublishModeHost || p.PublishedPort != 15432 {
		t.Errorf("endpoint %+v, want dnsrr with host port 15432", spec.EndpointSpec)
	}
	if spec.TaskTemplate.RestartPolicy.Condition != swarm.RestartPolicyConditionNone {
		t.Errorf("restart %v, want none as compose's default", spec.TaskTemplate.RestartPolicy.Condition)
	}
}

func TestSpecOfRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, service, field string }{
		{"build", "    build: .\n", "build"},
		{"container_name", "    container_name: xy\n", "container_name"},
		{"cpuset", "    cpuset: \"1\"\n", "cpuset"},
		{"privileged", "    privileged: true\n", "privileged"},
		{"tmpfs options", "    tmpfs: [\"/x:size=1m\"]\n", "tmpfs"},
		{"dnsrr ingress", "    deploy: {endpoint_mode: dnsrr}\n    ports: [\"8080:8080\"]\n", "ports[0]"},
		{"rollback", "    deploy: {rollback_config: {parallelism: 2}}\n", "deploy.rollback_config"},
		{"other network", "    networks: [back]\nnetworks: {back: {}}\n", "networks.back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := specOfYAML(t, "services:\n  app:\n    image: app\n"+tc.service, "app")
			var ue *UnsupportedError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) {
				t.Fatalf("err %v, want an UnsupportedError", err)
			}
			if ue.Service != "app" || ue.Field != tc.field {
				t.Errorf("refused %s.%s, want app.%s (%v)", ue.Service, ue.Field, tc.field, err)
			}
		})
	}
}

func TestParsePlace(t *testing.T) {
	t.Parallel()
	got, err := ParsePlace([]string{"app=node.id==abc", "db=node.labels.role==db", "app=node.labels.zone!=b"})
	if err != nil || len(got["app"]) != 2 || got["db"][0] != "node.labels.role==db" {
		t.Errorf("ParsePlace = %v, %v", got, err)
	}
	for _, bad := range []string{"app", "=node.id==x", "app=node.id", "app=node.id=="} {
		if _, err := ParsePlace([]string{bad}); !errors.Is(err, sweep.ErrBadInput) {
			t.Errorf("ParsePlace(%q): %v, want bad input", bad, err)
		}
	}
}
