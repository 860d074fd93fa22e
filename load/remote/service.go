package remote

import (
	"crypto/rand"
	"encoding/hex"
	"maps"
	"time"

	"github.com/docker/docker/api/types/swarm"
)

// LabelLoad is put on every load service and its container, besides the
// run's labels: its value says which phase the service drives (warmup or
// measure), and its presence tells load services from the stack's own.
const LabelLoad = "sweep.load"

// DefaultCommand runs `sweep drive` in an image that holds the static
// sweep binary at /sweep.
var DefaultCommand = []string{"/sweep", "drive"}

// stopGrace is how long the swarm waits after SIGTERM before it kills the
// far end: the built-in driver stops within milliseconds of a stop and
// then writes one frame.
const stopGrace = 10 * time.Second

// serviceName is a new load service's name: the prefix and random hex, so
// phases that run at once never collide.
func serviceName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return prefix + "-load-" + hex.EncodeToString(b[:])
}

// serviceSpec is the one-shot service that runs req on the far end: one
// replica that is never restarted, placed by the options' constraints,
// labelled with the run's labels and LabelLoad; an error when req cannot
// travel (Encode).
func (o Options) serviceSpec(name string, req Request) (swarm.ServiceSpec, error) {
	env, err := req.Encode()
	if err != nil {
		return swarm.ServiceSpec{}, err
	}
	labels := maps.Clone(o.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelLoad] = "measure"
	if req.Warmup {
		labels[LabelLoad] = "warmup"
	}
	grace := stopGrace
	one := uint64(1)
	nets := make([]swarm.NetworkAttachmentConfig, 0, len(o.Networks))
	for _, n := range o.Networks {
		nets = append(nets, swarm.NetworkAttachmentConfig{Target: n})
	}
	return swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: name, Labels: labels},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: &swarm.ContainerSpec{
				Image:           o.Image,
				Command:         o.Command,
				Env:             []string{RequestEnv + "=" + env},
				Labels:          maps.Clone(labels),
				StopSignal:      "SIGTERM",
				StopGracePeriod: &grace,
			},
			RestartPolicy: &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionNone},
			Placement:     &swarm.Placement{Constraints: o.Constraints},
			Networks:      nets,
		},
		Mode: swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &one}},
	}, nil
}
