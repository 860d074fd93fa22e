package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Engine is the part of a swarm manager's Engine API the driver uses;
// *client.Client satisfies it.
type Engine interface {
	ServiceCreate(ctx context.Context, spec swarm.ServiceSpec, opts swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error)
	ServiceInspectWithRaw(ctx context.Context, id string, opts swarm.ServiceInspectOptions) (swarm.Service, []byte, error)
	ServiceUpdate(ctx context.Context, id string, v swarm.Version, spec swarm.ServiceSpec, opts swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error)
	ServiceRemove(ctx context.Context, id string) error
	ServiceLogs(ctx context.Context, id string, opts container.LogsOptions) (io.ReadCloser, error)
	TaskList(ctx context.Context, opts swarm.TaskListOptions) ([]swarm.Task, error)
	NodeInspectWithRaw(ctx context.Context, id string) (swarm.Node, []byte, error)
}

// Defaults of Options.
const (
	DefaultStartTimeout = time.Minute
	DefaultNamePrefix   = "sweep"
)

// Options configure the driver for every phase it runs.
type Options struct {
	// Image holds the static sweep binary; it must be on the nodes the
	// constraints allow (the service is created without asking a
	// registry, so a node pulls only when it lacks the image).
	Image string
	// Command runs `sweep drive` in Image; nil means DefaultCommand.
	Command []string
	// Constraints place the load, e.g. node.id==<ID> or
	// node.labels.role==load; none lets the swarm choose.
	Constraints []string
	// Networks the load's container joins (e.g. the stack's overlay
	// network, to reach the target by service name); none: the node's
	// default bridge, which reaches the node's published ports.
	Networks []string
	// Labels are the run's labels, put on the service and its container.
	Labels map[string]string
	// NamePrefix starts every service's name; empty: DefaultNamePrefix.
	NamePrefix string
	// Builtin are the built-in driver's options on the far end.
	Builtin builtin.Options
	// K6, when set, runs k6 instead of the built-in driver: each phase's
	// service from K6.Image, sweep installed into it from Image (see
	// k6service.go).
	K6 *K6Options
	// StartTimeout bounds the time from creating a service to its task
	// running, added to the phase's duration and endGrace to bound the
	// whole wait; zero means DefaultStartTimeout.
	StartTimeout time.Duration
	// Poll is how often the task's state is asked; zero means 250 ms.
	Poll time.Duration
}

// endGrace is how long after the phase's duration the result may take to
// come back: the built-in driver ends promptly, the swarm reports the
// task's end and the log broker forwards the last lines.
const endGrace = 30 * time.Second

// resultGrace is how long the driver waits for the result frame once the
// task has ended, before it reads the logs again from the start.
const resultGrace = 5 * time.Second

// removeTimeout bounds the removal of a service, which runs even after
// the phase's context is cancelled.
const removeTimeout = 30 * time.Second

// Driver runs the built-in driver's phases, or k6's (Options.K6), as
// one-shot swarm services. It
// keeps no state between phases and may run several at once.
type Driver struct {
	eng  Engine
	opts Options
}

var _ sweep.Driver = (*Driver)(nil)

// New returns a driver that creates services through eng, a swarm
// manager's API, with opts' defaults filled in. Built-in options that
// cannot travel are CheckRequest's error.
func New(eng Engine, opts Options) (*Driver, error) {
	if opts.Image == "" {
		return nil, ErrNoImage
	}
	if opts.K6 != nil {
		if err := opts.K6.Check(); err != nil {
			return nil, err
		}
	} else if err := CheckRequest(opts.Builtin); err != nil {
		return nil, err
	}
	if opts.Command == nil {
		opts.Command = DefaultCommand
	}
	if opts.NamePrefix == "" {
		opts.NamePrefix = DefaultNamePrefix
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Poll <= 0 {
		opts.Poll = 250 * time.Millisecond
	}
	return &Driver{eng: eng, opts: opts}, nil
}

// Name is the far end's driver, "builtin" or "k6"; the record tells a
// remote run by its load_node.
func (d *Driver) Name() string {
	if d.opts.K6 != nil {
		return "k6"
	}
	return "builtin"
}

// Run drives req's load from a one-shot service and returns the far end's
// measurement, with LoadNode naming the node it ran on. A closed req.Stop
// scales the service to zero, which the far end takes as its stop; a
// cancelled ctx removes the service and returns ctx's error, wrapped. The
// service is removed in every case, under its own timeout.
func (d *Driver) Run(ctx context.Context, req sweep.LoadRequest) (m results.Measurement, err error) {
	r := NewRequest(req, d.opts.Builtin)
	if d.opts.K6 == nil {
		if err := builtin.New(d.opts.Builtin).Check(req); err != nil {
			return results.Measurement{}, err
		}
	} else if r, err = d.opts.K6.Request(req); err != nil {
		return results.Measurement{}, err
	}
	spec, err := d.opts.serviceSpec(serviceName(d.opts.NamePrefix), r)
	if err != nil {
		return results.Measurement{}, err
	}
	if d.opts.K6 != nil {
		node, err := d.install(ctx)
		if err != nil {
			return results.Measurement{}, err
		}
		d.opts.k6Service(&spec, node)
	}
	created, err := d.eng.ServiceCreate(ctx, spec, swarm.ServiceCreateOptions{})
	if err != nil {
		return results.Measurement{}, fmt.Errorf("create load service %s: %w", spec.Annotations.Name, err)
	}
	defer func() {
		if rerr := d.remove(ctx, created.ID); rerr != nil && err == nil {
			err = rerr
		}
	}()
	p := newPhase(d, created.ID, spec.Annotations.Name, req)
	return p.run(ctx)
}

// remove removes service id, also after ctx is cancelled; a service
// already gone is no error.
func (d *Driver) remove(ctx context.Context, id string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	if err := d.eng.ServiceRemove(rctx, id); err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("remove load service %s: %w", id, err)
	}
	return nil
}

// scaleToZero asks the swarm to stop the service's task: the far end gets
// SIGTERM and ends its phase as a normal stop.
func (d *Driver) scaleToZero(ctx context.Context, id string) error {
	svc, _, err := d.eng.ServiceInspectWithRaw(ctx, id, swarm.ServiceInspectOptions{})
	if err != nil {
		return fmt.Errorf("inspect load service %s: %w", id, err)
	}
	spec := svc.Spec
	zero := uint64(0)
	spec.Mode.Replicated = &swarm.ReplicatedService{Replicas: &zero}
	if _, err := d.eng.ServiceUpdate(ctx, id, svc.Version, spec, swarm.ServiceUpdateOptions{}); err != nil {
		return fmt.Errorf("stop load service %s: %w", id, err)
	}
	return nil
}

// node names the swarm node id, with its hostname when the manager tells
// it.
func (d *Driver) node(ctx context.Context, id string) *results.NodeInfo {
	n := &results.NodeInfo{ID: id}
	if info, _, err := d.eng.NodeInspectWithRaw(ctx, id); err == nil {
		n.Hostname = info.Description.Hostname
	}
	return n
}

// Errors of the driver.
var (
	// ErrNoImage means Options.Image is empty.
	ErrNoImage = errors.New("no image for the load service")
	// ErrTimeout means the phase's result did not come back in time.
	ErrTimeout = errors.New("load service gave no result in time")
	// ErrNoResult means the load's task ended without a result frame.
	ErrNoResult = errors.New("load service ended without a result")
	// ErrFarEnd marks an error the far end reported.
	ErrFarEnd = errors.New("remote load")
)

// TaskError is a load task that ended without a result: its state, the
// swarm's message and the last lines the far end printed.
type TaskError struct {
	Service string
	State   swarm.TaskState
	Message string
	Tail    []string
}

func (e *TaskError) Error() string {
	s := fmt.Sprintf("load service %s: task %s", e.Service, e.State)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if len(e.Tail) > 0 {
		s += fmt.Sprintf("; last output: %q", e.Tail)
	}
	return s
}

// Unwrap makes every TaskError an ErrNoResult.
func (e *TaskError) Unwrap() error { return ErrNoResult }
