// Package swarm runs the system under test as services of a Docker Swarm
// stack, created through the Engine API from the same compose files the
// compose backend reads (compose's own loader, via compose.ReadBase):
// what has a swarm equivalent is translated (CPU and memory limits,
// env, ports in host or ingress mode, endpoint mode vip or dnsrr,
// healthchecks, placement, restart policies, mounts), and what has none
// is refused with an *UnsupportedError naming the service and the field,
// rather than dropped as `docker stack deploy` drops some of it.
//
// Every service is named <stack>_<service> in stack sweep<run id> (the
// com.docker.stack.namespace label, as stack deploy sets it) and carries
// the run's labels, as do its containers and the stack's overlay network,
// so Cleanup finds them after a crash. A cell is a service update of the
// target (its NanoCPUs, env and labels, forced so a new task always
// starts), after which the stack polls the tasks itself until the new one
// runs, is healthy and the old one is gone: the CLI's blocking update
// waits a monitor period longer. Applied values are read back from the
// task and, where the node's engine is reachable (the node label
// sweep.engine), from its container. It implements sweep.Stack.
package swarm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/sweep"
)

// NamespaceLabel is the label docker stack deploy puts on a stack's
// services and networks; `docker stack ls` and `docker stack rm` find
// sweep's stacks by it.
const NamespaceLabel = "com.docker.stack.namespace"

// Options configure a Stack.
type Options struct {
	sweep.StackOptions
	// Place adds placement constraints per service (node.id==<id>,
	// node.labels.role==db), to those the files' deploy.placement has.
	Place map[string][]string
	// Manager is the swarm manager's engine; nil connects with Connect.
	Manager Manager
	// Lane, for one of several stacks of a run measuring cells side by
	// side (sweep.Lanes), is appended to the stack's name so the stacks
	// do not collide; they share the run's labels, so Cleanup removes all.
	Lane string
	// PinTo, a node id, places every service of the stack on that node
	// (a lane's node), besides Place's constraints.
	PinTo string
}

// Stack is a swarm stack under test. It implements sweep.Stack. Its
// methods are not safe for concurrent use.
type Stack struct {
	opts    Options
	base    compose.Base
	mgr     Manager
	project string
	labels  map[string]string
	specs   map[string]swarm.ServiceSpec // translated, by compose service
	network string                       // the overlay network's id, once created
	ids     map[string]string            // created services' ids, by compose service
	nodes   *nodes
	route   Router // container → node engine, for the samplers
	// Notices say what the translation changed (a port's host IP).
	Notices []string

	mu      sync.Mutex
	pending *update           // the target's last update, until WaitReady sees it done
	copies  map[string]string // the targets of an interleaved group (copyKey) → service id
}

var _ sweep.Stack = (*Stack)(nil)

// New reads the files, translates every service and checks the manager
// and the target before anything is created. Bad files, an unknown
// service, a field without swarm equivalent or a bad constraint give
// errors wrapping sweep.ErrBadInput; an engine that does not answer
// engine.ErrEngine, one that is no swarm manager ErrNotSwarm.
func New(ctx context.Context, opts Options) (*Stack, error) {
	s := &Stack{opts: opts, mgr: opts.Manager, project: sweep.ProjectName(opts.RunID), ids: map[string]string{}}
	if strings.ContainsAny(opts.RunID, "\n\r\x00") || s.project == "sweep" {
		return nil, sweep.BadInput("run_id", "%q needs at least one letter or digit", opts.RunID)
	}
	if opts.Lane != "" {
		s.project = sweep.ProjectName(opts.RunID + opts.Lane)
	}
	if len(opts.Files) == 0 {
		return nil, sweep.BadInput("compose", "no compose file; give the stack's docker-compose.yml")
	}
	var err error
	if s.base, err = compose.ReadBase(opts.Files, s.project, opts.Env); err != nil {
		return nil, err
	}
	if !slices.Contains(s.base.Services, opts.Service) {
		return nil, sweep.BadInput("service", "%q is not a service of the stack; services: %s",
			opts.Service, strings.Join(s.base.Services, ", "))
	}
	if s.labels, err = runLabels(opts, s.project); err != nil {
		return nil, err
	}
	if err := s.translate(); err != nil {
		return nil, err
	}
	if s.mgr == nil {
		if s.mgr, err = Connect(ctx, opts.Env); err != nil {
			return nil, err
		}
	} else if err := checkManager(ctx, s.mgr); err != nil {
		return nil, err
	}
	s.nodes = newNodes(s.mgr)
	return s, nil
}

// runLabels are the labels of everything the stack creates.
func runLabels(opts Options, project string) (map[string]string, error) {
	l, err := opts.RunLabels()
	if err != nil {
		return nil, err
	}
	m := l.Map()
	m[NamespaceLabel] = project
	return m, nil
}

// translate turns every service of the files into a service spec, with
// the extra placement constraints of Options.Place.
func (s *Stack) translate() error {
	for svc := range s.opts.Place {
		if !slices.Contains(s.base.Services, svc) {
			return sweep.BadInput("place", "%q is not a service of the stack; services: %s",
				svc, strings.Join(s.base.Services, ", "))
		}
	}
	s.specs = map[string]swarm.ServiceSpec{}
	for _, name := range s.base.Services {
		spec, notices, err := specOf(s.project, s.base.Model.Services[name], s.labels, s.networkName())
		if err != nil {
			return sweep.BadInput("compose", "%v", err)
		}
		if err := checkConstraints(s.opts.Place[name]); err != nil {
			return sweep.BadInput("place", "%s: %v", name, err)
		}
		spec.TaskTemplate.Placement.Constraints = append(spec.TaskTemplate.Placement.Constraints, s.opts.Place[name]...)
		if s.opts.PinTo != "" {
			spec.TaskTemplate.Placement.Constraints = append(spec.TaskTemplate.Placement.Constraints, "node.id=="+s.opts.PinTo)
		}
		if name == s.opts.Service && (spec.Mode.Replicated == nil || *spec.Mode.Replicated.Replicas != 1) {
			return sweep.BadInput("compose", "service %s: the target needs exactly one replica (deploy.replicas: 1, not global)", name)
		}
		s.specs[name] = spec
		s.Notices = append(s.Notices, notices...)
	}
	return nil
}

// checkConstraints accepts constraints of the form KEY==VALUE or
// KEY!=VALUE, as swarm does.
func checkConstraints(cs []string) error {
	for _, c := range cs {
		k, v, ok := strings.Cut(c, "==")
		if !ok {
			k, v, ok = strings.Cut(c, "!=")
		}
		if !ok || strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "" {
			return fmt.Errorf("constraint %q: want KEY==VALUE or KEY!=VALUE (node.id==<id>, node.labels.role==db)", c)
		}
	}
	return nil
}

// networkName is the stack's overlay network, named as stack deploy
// names a stack's default network.
func (s *Stack) networkName() string { return s.project + "_default" }

// Network is the stack's attachable overlay network: a one-shot load
// service that joins it reaches the services by name.
func (s *Stack) Network() string { return s.networkName() }

// Labels are the run's labels the stack puts on what it creates (a copy):
// a load service that carries them is removed with the run.
func (s *Stack) Labels() map[string]string { return maps.Clone(s.labels) }

// Project is the stack's name.
func (s *Stack) Project() string { return s.project }

// Services lists the services of the base files, sorted.
func (s *Stack) Services() []string { return slices.Clone(s.base.Services) }

// Manager is the swarm manager the stack talks to.
func (s *Stack) Manager() Manager { return s.mgr }

// ensureNetwork creates the stack's attachable overlay network once.
func (s *Stack) ensureNetwork(ctx context.Context) error {
	if s.network != "" {
		return nil
	}
	resp, err := s.mgr.NetworkCreate(ctx, s.networkName(), network.CreateOptions{
		Driver: "overlay", Attachable: true, Labels: maps.Clone(s.labels)})
	if err != nil {
		return fmt.Errorf("create network %s: %w", s.networkName(), err)
	}
	s.network = resp.ID
	return nil
}

// ParsePlace turns SERVICE=CONSTRAINT entries into constraints by
// service, for Options.Place.
func ParsePlace(entries []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, e := range entries {
		svc, c, ok := strings.Cut(e, "=")
		if !ok || strings.TrimSpace(svc) == "" {
			return nil, sweep.BadInput("place", "%q is not SERVICE=CONSTRAINT, e.g. app=node.id==<id> or db=node.labels.role==db", e)
		}
		if err := checkConstraints([]string{c}); err != nil {
			return nil, sweep.BadInput("place", "%s: %v", svc, err)
		}
		out[strings.TrimSpace(svc)] = append(out[strings.TrimSpace(svc)], c)
	}
	return out, nil
}
