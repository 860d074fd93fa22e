package compose

import (
	"fmt"
	"os"
	"slices"
	"strings"

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

// Base is what the override needs to know about the base compose files.
type Base struct {
	// Version is the base's `version:` key, "" when absent.
	Version string
	// Services lists the services of all base files, sorted.
	Services []string
	// CPUAt says where the base files set each service's CPU limit; a
	// service without one is absent.
	CPUAt map[string]Place
}

// baseFile is the part of a compose file that Base reads.
type baseFile struct {
	Version  yaml.Node               `yaml:"version"`
	Services map[string]*baseService `yaml:"services"`
}

// baseService is the part of a base service that Base reads.
type baseService struct {
	CPUs   any `yaml:"cpus"`
	Deploy struct {
		Resources struct {
			Limits struct {
				CPUs any `yaml:"cpus"`
			} `yaml:"limits"`
		} `yaml:"resources"`
	} `yaml:"deploy"`
}

// ReadBase reads and merges the base compose files, in order.
func ReadBase(paths []string) (Base, error) {
	docs := make([][]byte, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return Base{}, sweep.BadInput("compose", "read %s: %v", p, err)
		}
		docs = append(docs, b)
	}
	base, err := ParseBase(docs...)
	if err != nil {
		return Base{}, sweep.BadInput("compose", "%s: %v", strings.Join(paths, ", "), err)
	}
	return base, nil
}

// ParseBase merges compose documents the way compose does for what Base
// holds: services are the union, CPU limit places add up (a later file
// cannot remove a key), and the first `version:` wins.
func ParseBase(docs ...[]byte) (Base, error) {
	b := Base{CPUAt: map[string]Place{}}
	seen := map[string]bool{}
	for i, doc := range docs {
		var f baseFile
		if err := yaml.Unmarshal(doc, &f); err != nil {
			return Base{}, fmt.Errorf("file %d: %w", i+1, err)
		}
		if b.Version == "" {
			b.Version = f.Version.Value
		}
		for name, svc := range f.Services {
			if !seen[name] {
				seen[name] = true
				b.Services = append(b.Services, name)
			}
			if p := cpuPlace(svc); p != 0 {
				b.CPUAt[name] |= p
			}
		}
	}
	if len(b.Services) == 0 {
		return Base{}, fmt.Errorf("no services: key (compose file format v1 is not supported)")
	}
	slices.Sort(b.Services)
	return b, nil
}

// cpuPlace says where svc sets its CPU limit (0: nowhere).
func cpuPlace(svc *baseService) Place {
	var p Place
	if svc == nil {
		return 0
	}
	if svc.CPUs != nil {
		p |= PlaceService
	}
	if svc.Deploy.Resources.Limits.CPUs != nil {
		p |= PlaceDeploy
	}
	return p
}
