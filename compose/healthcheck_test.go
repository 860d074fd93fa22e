package compose

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// minHealthTimeout is the least healthcheck timeout the stacks sweep
// ships may have: a recreated target checks itself under its CPU limit
// on a loaded host, where one exec of its check can take seconds; with
// the demo's 1 s timeout every check failed and the target never got
// ready. A longer timeout costs nothing when the check is quick.
const minHealthTimeout = 5 * time.Second

// TestShippedHealthchecksFitALoadedHost holds every healthcheck of the
// demo's and the examples' compose files to minHealthTimeout.
func TestShippedHealthchecksFitALoadedHost(t *testing.T) {
	t.Parallel()
	examples, err := filepath.Glob(filepath.Join("..", "examples", "*", "docker-compose.yaml"))
	if err != nil || len(examples) < 3 {
		t.Fatalf("found the examples' compose files %v (%v), want at least 3", examples, err)
	}
	demo := func(f ...string) []string {
		for i := range f {
			f[i] = filepath.Join("demo", f[i])
		}
		return f
	}
	stacks := [][]string{demo("docker-compose.yaml"), demo("docker-compose.pgbouncer.yaml"),
		demo("docker-compose.yaml", "docker-compose.swarm.yaml")}
	for _, e := range examples {
		stacks = append(stacks, []string{e})
	}
	checked := 0
	for _, f := range stacks {
		b, err := ReadBase(f, "", sweep.Env(nil))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for name, svc := range b.Model.Services {
			hc := svc.HealthCheck
			if hc == nil || hc.Disable || len(hc.Test) == 0 {
				continue
			}
			checked++
			if hc.Timeout != nil && time.Duration(*hc.Timeout) < minHealthTimeout { // none: Docker's 30 s
				t.Errorf("%v: service %s: healthcheck timeout %s, want at least %s", f, name, time.Duration(*hc.Timeout), minHealthTimeout)
			}
		}
	}
	if checked == 0 {
		t.Error("no healthcheck checked")
	}
}
