package compose

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/sweep"
)

// Place says where a compose file keeps a service's CPU limit.
type Place int

// The two places of a CPU limit. A base may use both; then the override
// writes both with the same value.
const (
	PlaceService Place = 1 << iota // service-level `cpus:`
	PlaceDeploy                    // `deploy.resources.limits.cpus:`
)

// Base is what sweep needs to know about the base compose files, read as
// the compose CLI reads them.
type Base struct {
	// Version is the base's `version:` key, "" when absent.
	Version string
	// Services lists the services compose starts (those of the active
	// profiles), sorted.
	Services []string
	// CPUAt says where the base files set each service's CPU limit; a
	// service without one is absent.
	CPUAt map[string]Place
	// DeployLimits holds the services whose base files write
	// deploy.resources.limits (of any resource).
	DeployLimits map[string]bool
	// Images maps each service to the image the files name for it, ""
	// when compose builds it without naming one.
	Images map[string]string
	// DependsOn lists the services each service depends on (depends_on in
	// the list or the map form, and what the loader adds for links and
	// the like), sorted.
	DependsOn map[string][]string
	// Model is compose's own model of the files (compose-go's project,
	// profiles applied), for a backend that starts the services itself
	// (package swarm).
	Model *types.Project
	// secrets are the values interpolation took from the environment.
	secrets *secrets
}

// ReadBase reads the base compose files of project the way the compose
// CLI reads them when sweep runs it with `-p project -f paths...`
// (project "": as compose names it without -p) in the environment env:
// compose v2's loader interpolates variables from env and the .env next
// to the first file, applies extends, include and the profiles of
// COMPOSE_PROFILES, and merges the files in order. It reads local files
// only (no remote include), so it takes no context. An error is bad
// input naming the compose files; it holds no interpolated value.
func ReadBase(paths []string, project string, env sweep.Env) (Base, error) {
	bad := func(err error) error {
		return sweep.BadInput("compose", "%s: %v", strings.Join(paths, ", "), err)
	}
	l, err := load(context.Background(), paths, project, env)
	if err != nil {
		return Base{}, bad(err)
	}
	b := Base{CPUAt: map[string]Place{}, DeployLimits: map[string]bool{}, Images: map[string]string{},
		DependsOn: map[string][]string{}, Model: l.project, secrets: l.secrets}
	if b.Version, err = version(paths); err != nil {
		return Base{}, bad(err)
	}
	services, _ := l.model["services"].(map[string]any)
	for name, svc := range l.project.Services {
		b.Services = append(b.Services, name)
		b.Images[name] = svc.Image
		b.DependsOn[name] = slices.Sorted(maps.Keys(svc.DependsOn))
		if p := cpuPlace(services[name]); p != 0 {
			b.CPUAt[name] = p
		}
		if has(services[name], "deploy", "resources", "limits") {
			b.DeployLimits[name] = true
		}
	}
	switch {
	case len(b.Services) == 0 && len(l.project.DisabledServices) > 0:
		return Base{}, bad(fmt.Errorf("every service is in a profile that COMPOSE_PROFILES does not activate"))
	case len(b.Services) == 0:
		return Base{}, bad(fmt.Errorf("no services: key (compose file format v1 is not supported)"))
	}
	slices.Sort(b.Services)
	return b, nil
}

// Replicas is the service's replica count in the files (scale or
// deploy.replicas; 1 when neither is set or the service is unknown).
func (b Base) Replicas(service string) int {
	if b.Model == nil {
		return 1
	}
	svc, ok := b.Model.Services[service]
	if !ok {
		return 1
	}
	return max(svc.GetScale(), 1)
}

// redact takes the values interpolated into the base files out of msg
// (an error of the compose CLI, which read the same files).
func (b Base) redact(msg string) string {
	if b.secrets == nil {
		return msg
	}
	return b.secrets.redact(msg)
}

// version is the first `version:` the files write. The loader drops the
// key, but compose v1 needs the override to repeat it.
func version(paths []string) (string, error) {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		var f struct {
			Version yaml.Node `yaml:"version"`
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			return "", fmt.Errorf("%s: %w", p, err)
		}
		if f.Version.Value != "" {
			return f.Version.Value, nil
		}
	}
	return "", nil
}

// cpuPlace says where a service of the merged model sets its CPU limit
// (0: nowhere). A key counts wherever it is written, even as 0.
func cpuPlace(svc any) Place {
	var p Place
	if has(svc, "cpus") {
		p |= PlaceService
	}
	if has(svc, "deploy", "resources", "limits", "cpus") {
		p |= PlaceDeploy
	}
	return p
}

// has reports whether the yaml model m holds the key path.
func has(m any, path ...string) bool {
	for _, k := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			return false
		}
		if m, ok = mm[k]; !ok {
			return false
		}
	}
	return true
}
