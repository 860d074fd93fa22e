package export

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// readManifests finds the target Deployment's container in the stack's
// manifests (files, or the run's): the one the run named, or its only
// one.
func (s *Settings) readManifests(run *results.Run, files []string) error {
	if len(files) == 0 {
		files = run.Manifests
	}
	if len(files) == 0 {
		return sweep.BadInput("manifests", "run %s saved no Kubernetes manifests in sweep.json; name the stack's manifests", run.RunID)
	}
	c, err := kube.TargetContainer(files, s.Service, run.Container)
	if err != nil {
		return err
	}
	s.container, s.files = c, files
	s.poolContainers = map[string][]string{}
	for svc := range s.ServiceEnv {
		if s.poolContainers[svc], err = kube.Containers(files, svc); err != nil {
			return err
		}
	}
	return nil
}

// patchDoc is a strategic merge patch of one Deployment, with the object's
// identity so that kustomize takes it as a patch file as it is.
type patchDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Template struct {
			Spec struct {
				Containers []patchContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type patchContainer struct {
	Name      string `yaml:"name"`
	Resources *struct {
		Limits   map[string]string `yaml:"limits"`
		Requests map[string]string `yaml:"requests"`
	} `yaml:"resources,omitempty"`
	Env []map[string]string `yaml:"env"`
}

// writeKubernetes writes a strategic merge patch of the target Deployment:
// its container's CPU limit and an equal request (as the run measured
// it) and the env. A pool of another Deployment (pool_env SERVICE:NAME)
// is a second document, to patch that Deployment with.
func writeKubernetes(w io.Writer, s *Settings) error {
	if s.container == "" {
		return errors.New("settings were exported without the manifests; export them with the kubernetes format")
	}
	cpu := fmt.Sprintf("%dm", int64(s.CPUs*1000+0.5))
	target := patchContainer{Name: s.container, Resources: &struct {
		Limits   map[string]string `yaml:"limits"`
		Requests map[string]string `yaml:"requests"`
	}{Limits: map[string]string{"cpu": cpu}, Requests: map[string]string{"cpu": cpu}}}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		target.Env = append(target.Env, map[string]string{"name": k, "value": s.Env[k]})
	}
	var b strings.Builder
	b.WriteString(describe(s))
	fmt.Fprintf(&b, "# A strategic merge patch of Deployment %s (container %s): kubectl patch deployment %s --type strategic --patch-file FILE,\n"+
		"# or a kustomize patch. The CPU request equals the limit, as the run measured it.\n", s.Service, s.container, s.Service)
	if err := encodePatch(&b, s.Service, target); err != nil {
		return err
	}
	for _, svc := range slices.Sorted(maps.Keys(s.ServiceEnv)) {
		fmt.Fprintf(&b, "---\n# The pool goes to Deployment %s (the run's pool_env %s): patch it with this document.\n", svc, s.PoolEnv)
		var cs []patchContainer
		for _, name := range s.poolContainers[svc] {
			c := patchContainer{Name: name}
			for _, k := range slices.Sorted(maps.Keys(s.ServiceEnv[svc])) {
				c.Env = append(c.Env, map[string]string{"name": k, "value": s.ServiceEnv[svc][k]})
			}
			cs = append(cs, c)
		}
		if err := encodePatch(&b, svc, cs...); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func encodePatch(b *strings.Builder, name string, c ...patchContainer) error {
	var d patchDoc
	d.APIVersion, d.Kind, d.Metadata.Name = "apps/v1", "Deployment", name
	d.Spec.Template.Spec.Containers = c
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return fmt.Errorf("encode the patch of %s: %w", name, err)
	}
	return enc.Close()
}
