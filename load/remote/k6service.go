package remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"time"

	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/sweep"
)

// K6Options are a k6 load's away from sweep's process, on a swarm node
// or as a Kubernetes Job: the image k6 runs from and the user's script.
type K6Options struct {
	// Image holds k6 on its PATH (grafana/k6: /usr/bin/k6); the load's
	// container runs from it, `sweep drive` installed beside it from the
	// load image (the driver's own Image).
	Image string
	// Script is the user's k6 script, read at each phase from the
	// content its recorded hash vouches for; nil: the bundled crud.js.
	Script *sweep.Script
}

// ErrNoK6Image means K6Options.Image is empty.
var ErrNoK6Image = errors.New("no image holding k6 for the load")

// Check returns an error when the k6 load cannot run away from sweep's
// process whatever the phase: no image (ErrNoK6Image), or a script that
// cannot travel (CheckK6Script's errors, sweep.ErrFileChanged).
func (o K6Options) Check() error {
	if o.Image == "" {
		return ErrNoK6Image
	}
	script, err := ScriptOf(o.Script)
	if err != nil {
		return err
	}
	return CheckK6Script(script)
}

// Request is the request that runs req with k6 on the far end, the
// user's script in it.
func (o K6Options) Request(req sweep.LoadRequest) (Request, error) {
	script, err := ScriptOf(o.Script)
	if err != nil {
		return Request{}, err
	}
	return NewK6Request(req, script), nil
}

// K6Mount is where a k6 load's container, from the k6 image, finds the
// sweep binary the load image installed (`sweep drive --install`) in a
// volume both mount, and where `sweep drive` keeps k6's files (--dir):
// Install leaves it writable by every user, whatever user the k6 image
// runs as.
const K6Mount = "/sweep-bin"

// InstallCommand is the load image's command (cmd runs `sweep drive`)
// that installs sweep into K6Mount.
func InstallCommand(cmd []string) []string {
	return append(slices.Clone(cmd), "--install", K6Mount)
}

// K6Command is the k6 load's command: the installed sweep's drive, k6's
// files kept in K6Mount.
func K6Command() []string {
	return []string{path.Join(K6Mount, InstalledName), "drive", "--dir", K6Mount}
}

// On a swarm node the k6 load is two services, as a swarm service has no
// init container: a one-shot install service from the load image writes
// sweep into a named volume on the node the load's constraints give it,
// then the phase's service, from the k6 image and pinned to that node,
// mounts the volume and runs `sweep drive` from it. The volume is the
// stack's (NamePrefix), one per node, labelled with the run's labels so
// the stack's Down and sweep clean remove it on every node whose engine
// they reach; the install runs again at each phase (a copy, replaced
// atomically), so no phase depends on what an earlier one left or on
// where it ran.

// binVolume is the name of the volume sweep is installed into.
func (o Options) binVolume() string { return o.NamePrefix + "-sweep-bin" }

// binMount is the mount of the install volume at K6Mount, the volume
// created on first use with the run's labels.
func (o Options) binMount() mount.Mount {
	return mount.Mount{Type: mount.TypeVolume, Source: o.binVolume(), Target: K6Mount,
		VolumeOptions: &mount.VolumeOptions{Labels: maps.Clone(o.Labels)}}
}

// installSpec is the one-shot service that installs sweep into the
// volume on a node the load's constraints allow.
func (o Options) installSpec(name string) swarm.ServiceSpec {
	labels := maps.Clone(o.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelLoad] = "install"
	one := uint64(1)
	return swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: name, Labels: labels},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: &swarm.ContainerSpec{
				Image:   o.Image,
				Command: InstallCommand(o.Command),
				Labels:  maps.Clone(labels),
				Mounts:  []mount.Mount{o.binMount()},
			},
			RestartPolicy: &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionNone},
			Placement:     &swarm.Placement{Constraints: o.Constraints},
		},
		Mode: swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &one}},
	}
}

// k6Service makes spec, a phase's service, run k6: from the k6 image,
// `sweep drive` from the install volume, on the node it was installed on.
func (o Options) k6Service(spec *swarm.ServiceSpec, node string) {
	cs := spec.TaskTemplate.ContainerSpec
	cs.Image = o.K6.Image
	cs.Command = K6Command()
	cs.Mounts = []mount.Mount{o.binMount()}
	// k6 stops, then writes its summary
	grace := k6StopGrace
	cs.StopGracePeriod = &grace
	p := spec.TaskTemplate.Placement
	p.Constraints = append(slices.Clone(p.Constraints), "node.id=="+node)
}

// k6StopGrace is how long the swarm waits after SIGTERM before it kills
// a k6 phase's far end, as the Kubernetes Job's grace period.
const k6StopGrace = 30 * time.Second

// install runs the install service and returns the node it installed
// sweep on; the service is removed in every case.
func (d *Driver) install(ctx context.Context) (node string, err error) {
	spec := d.opts.installSpec(serviceName(d.opts.NamePrefix + "-install"))
	created, err := d.eng.ServiceCreate(ctx, spec, swarm.ServiceCreateOptions{})
	if err != nil {
		return "", fmt.Errorf("create install service %s: %w", spec.Annotations.Name, err)
	}
	defer func() {
		if rerr := d.remove(ctx, created.ID); rerr != nil && err == nil {
			err = rerr
		}
	}()
	p := newPhase(d, created.ID, spec.Annotations.Name, sweep.LoadRequest{})
	deadline := time.NewTimer(d.opts.StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(d.opts.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("install sweep for k6: %w", ctx.Err())
		case <-deadline.C:
			return "", fmt.Errorf("install service %s did not end within %s: %w", p.name, d.opts.StartTimeout, ErrTimeout)
		case <-tick.C:
			t, ok, err := p.task(ctx)
			if err != nil {
				return "", err
			}
			if !ok || !ended(t.Status.State) {
				continue
			}
			if t.Status.State == swarm.TaskStateComplete && t.NodeID != "" {
				return t.NodeID, nil
			}
			o := p.readAll(ctx)
			return "", fmt.Errorf("install sweep for k6: %w", &TaskError{Service: p.name, State: t.Status.State, Message: taskMessage(t), Tail: o.Tail})
		}
	}
}
