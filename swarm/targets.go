package swarm

// The targets of an interleaved group (sweep.Targets). Each target is a
// service of its own: the target's spec as the stack deploys it
// (translated from the files, specFor applying its cell: env, CPU limit,
// memory, the cell's labels), named after its cell, one replica, with the
// run's labels and the stack's namespace (Down, Cleanup and sweep clean
// remove it with the stack), sweep.target on the service and its
// containers, on the stack's network without the target's alias (the
// stack's services do not reach it by the target's name), and only the
// port the URL reaches published, on a port the swarm picks: a routing
// mesh port from the manager's range (ingress), or a free port of the node
// its task runs on (host). A host-mode target runs on the node whose
// address the URL names, where one does. The stack's own target service
// is never created on this schedule.

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/go-connections/nat"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

var _ sweep.Targets = (*Stack)(nil)

// StartTargets creates one service per cfg (see above), and the stack's
// services that come after the target, as the first Apply does, and
// returns the targets in cfgs' order without waiting for them; on an error
// it removes the targets it made. The URL (Options.URL) must reach the
// target at a port it publishes.
func (s *Stack) StartTargets(ctx context.Context, cfgs []sweep.TargetConfig) ([]sweep.Target, error) {
	if len(cfgs) == 0 {
		return nil, nil
	}
	base, err := sweep.TargetBase(s.opts.URL)
	if err != nil {
		return nil, err
	}
	port, err := s.urlPort(base)
	if err != nil {
		return nil, err
	}
	for _, cfg := range cfgs {
		if err := s.checkCPUSet(cfg); err != nil {
			return nil, err
		}
	}
	list, err := s.mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	pin := ""
	if port.PublishMode == swarm.PortConfigPublishModeHost {
		pin = nodeAt(list, base.Hostname())
	}
	if err := s.checkMemory(list, cfgs, pin); err != nil {
		return nil, err
	}
	if err := s.ensureNetwork(ctx); err != nil {
		return nil, err
	}
	for _, svc := range s.base.Services {
		if _, ok := s.ids[svc]; !ok && svc != s.opts.Service {
			if err := s.create(ctx, svc, cfgs[0]); err != nil {
				return nil, err
			}
		}
	}
	return sweep.StartEach(ctx, cfgs, func(cfg sweep.TargetConfig) (sweep.Target, error) {
		return s.startCopy(ctx, cfg, base, port, pin)
	})
}

// urlPort is the target's published port the URL reaches.
func (s *Stack) urlPort(base *url.URL) (swarm.PortConfig, error) {
	want := sweep.URLPort(base)
	if ep := s.specs[s.opts.Service].EndpointSpec; ep != nil {
		for _, p := range ep.Ports {
			if p.PublishedPort != 0 && strconv.Itoa(int(p.PublishedPort)) == want && p.Protocol == swarm.PortConfigProtocolTCP {
				return p, nil
			}
		}
	}
	return swarm.PortConfig{}, sweep.BadInput("url", "%s: port %s is not one the target publishes; an interleaved run gives each target "+
		"a port of its own, so the URL must reach the target directly", base.Redacted(), want)
}

// nodeAt is the id of the node of list whose address is host ("" when
// none's is): a host-mode port is published on the node its task runs
// on.
func nodeAt(list []swarm.Node, host string) string {
	for _, sn := range list {
		if a := nodeAddr(sn); a != "" && a == host {
			return sn.ID
		}
	}
	return ""
}

// checkMemory is sweep.CheckTargetsMemory against the memory of the node
// the targets are placed on, where that is one node (pin, else the
// target's node.id== constraint), a target without a limit of its
// cell's having the target's own; elsewhere sweep.log says it was not
// checked.
func (s *Stack) checkMemory(list []swarm.Node, cfgs []sweep.TargetConfig, pin string) error {
	spec := s.specs[s.opts.Service]
	id := pin
	if p := spec.TaskTemplate.Placement; id == "" && p != nil {
		for _, c := range p.Constraints {
			if v, ok := strings.CutPrefix(strings.ReplaceAll(c, " ", ""), "node.id=="); ok {
				id = v
			}
		}
	}
	i := slices.IndexFunc(list, func(sn swarm.Node) bool { return sn.ID == id })
	if i < 0 {
		if s.opts.Log != nil {
			fmt.Fprintf(s.opts.Log, "%s targets' memory: not checked: the targets are not placed on one node\n", s.opts.Service)
		}
		return nil
	}
	var def int64
	if r := spec.TaskTemplate.Resources; r != nil && r.Limits != nil {
		def = r.Limits.MemoryBytes
	}
	return sweep.CheckTargetsMemory(cfgs, def, list[i].Description.Resources.MemoryBytes, "node "+id, s.opts.Log, s.opts.Service)
}

// startCopy creates cfg's target service.
func (s *Stack) startCopy(ctx context.Context, cfg sweep.TargetConfig, base *url.URL, port swarm.PortConfig, pin string) (*Copy, error) {
	cell := cfg.Labels[sweep.LabelCell]
	spec, err := s.copySpec(cfg, port, pin)
	if err != nil {
		return nil, err
	}
	resp, err := s.mgr.ServiceCreate(ctx, spec, swarm.ServiceCreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create the target of %s: %w", cell, err)
	}
	c := &Copy{stack: s, key: copyKey(s.opts.Service, cell), id: resp.ID, cell: cell, base: base, port: port}
	s.mu.Lock()
	if s.copies == nil {
		s.copies = map[string]string{}
	}
	s.copies[c.key] = resp.ID
	s.mu.Unlock()
	return c, nil
}

// copySpec is the spec of cfg's target service (see above).
func (s *Stack) copySpec(cfg sweep.TargetConfig, port swarm.PortConfig, pin string) (swarm.ServiceSpec, error) {
	spec, err := s.specFor(s.opts.Service, cfg)
	if err != nil {
		return spec, err
	}
	cell := cfg.Labels[sweep.LabelCell]
	spec.Name = copyName(s.project, s.opts.Service, cell)
	spec.Labels = maps.Clone(spec.Labels)
	maps.Copy(spec.Labels, cfg.Labels)
	spec.Labels[sweep.LabelTarget] = cell
	spec.TaskTemplate.ContainerSpec.Labels[sweep.LabelTarget] = cell // specFor's own copy
	nets := make([]swarm.NetworkAttachmentConfig, len(spec.TaskTemplate.Networks))
	for i, n := range spec.TaskTemplate.Networks {
		nets[i] = swarm.NetworkAttachmentConfig{Target: n.Target, DriverOpts: n.DriverOpts}
	}
	spec.TaskTemplate.Networks = nets
	place := swarm.Placement{}
	if p := spec.TaskTemplate.Placement; p != nil {
		place = *p
		place.Constraints = slices.Clone(p.Constraints)
	}
	if c := "node.id==" + pin; pin != "" && !slices.Contains(place.Constraints, c) {
		place.Constraints = append(place.Constraints, c)
	}
	spec.TaskTemplate.Placement = &place
	ep := &swarm.EndpointSpec{Mode: swarm.ResolutionModeVIP}
	if spec.EndpointSpec != nil {
		ep.Mode = spec.EndpointSpec.Mode
	}
	port.PublishedPort = 0 // the swarm picks one
	ep.Ports = []swarm.PortConfig{port}
	spec.EndpointSpec = ep
	return spec, nil
}

// copyKey names a target of an interleaved group among the stack's
// services (tasks, converge, watch).
func copyKey(service, cell string) string { return service + "@" + cell }

// maxName is the longest service name swarm takes.
const maxName = 63

// copyName is the service name of cell's target: <stack>_<service>_<cell>
// as a DNS name component (sweep.TargetName).
func copyName(project, service, cell string) string {
	return sweep.TargetName(project+"_"+service+"_"+cell, cell, "_", maxName, false)
}

// Copy is one target of an interleaved group (a sweep.Target): a
// service of its own.
type Copy struct {
	stack *Stack
	key   string // copyKey
	id    string // the service's
	cell  string
	base  *url.URL
	port  swarm.PortConfig // the target's port the URL reaches
	url   string           // once WaitReady found the published port
	ready string           // the ready URL at that port; "" with none
}

var _ sweep.Target = (*Copy)(nil)

// URL is the base URL at the target's own port, once WaitReady returned
// (a host-mode port is the node's pick when the task starts).
func (c *Copy) URL() string { return c.url }

// WaitReady waits as Stack.WaitReady does, for the target: its task
// runs (healthy, with a healthcheck), its published port is known, and
// without a healthcheck the ready URL at that port answers 200.
func (c *Copy) WaitReady(ctx context.Context, timeout time.Duration) error {
	s := c.stack
	if err := s.converge(ctx, &update{old: map[string]map[string]bool{c.key: nil}}, timeout); err != nil {
		return err
	}
	port, err := c.publishedPort(ctx)
	if err != nil {
		return err
	}
	c.url, c.ready = sweep.TargetURLs(c.base, s.opts.ReadyURL, strconv.Itoa(int(port)))
	return s.waitHTTP(ctx, "the target of "+c.cell, c.ready, timeout)
}

// publishedPort is the port the swarm published the target's port on:
// the routing mesh's, from the service; a host-mode one, from its
// running task, else from its container where its node's engine is
// reachable.
func (c *Copy) publishedPort(ctx context.Context) (uint32, error) {
	if c.port.PublishMode == swarm.PortConfigPublishModeHost {
		t, err := c.stack.running(ctx, c.key)
		if err != nil {
			return 0, err
		}
		if p, ok := matchPort(t.Status.PortStatus.Ports, c.port); ok {
			return p, nil
		}
		if p, ok := c.stack.containerPort(ctx, t, c.port); ok {
			return p, nil
		}
	} else {
		svc, _, err := c.stack.mgr.ServiceInspectWithRaw(ctx, c.id, swarm.ServiceInspectOptions{})
		if err != nil {
			return 0, fmt.Errorf("inspect the target of %s: %w", c.cell, err)
		}
		if p, ok := matchPort(svc.Endpoint.Ports, c.port); ok {
			return p, nil
		}
	}
	return 0, fmt.Errorf("the target of %s: no port published for %d/%s", c.cell, c.port.TargetPort, c.port.Protocol)
}

// matchPort is the published port of want's target port among ports.
func matchPort(ports []swarm.PortConfig, want swarm.PortConfig) (uint32, bool) {
	for _, p := range ports {
		if p.TargetPort == want.TargetPort && p.Protocol == want.Protocol && p.PublishedPort != 0 {
			return p.PublishedPort, true
		}
	}
	return 0, false
}

// containerPort is the host port the container of task t publishes
// port's target port on, read through its node's engine where reachable.
func (s *Stack) containerPort(ctx context.Context, t swarm.Task, port swarm.PortConfig) (uint32, bool) {
	n, err := s.nodes.get(ctx, t.NodeID)
	if err != nil || n.engine == nil || t.Status.ContainerStatus == nil {
		return 0, false
	}
	ct, err := n.engine.ContainerInspect(ctx, t.Status.ContainerStatus.ContainerID)
	if err != nil || ct.NetworkSettings == nil {
		return 0, false
	}
	key := nat.Port(fmt.Sprintf("%d/%s", port.TargetPort, port.Protocol))
	for _, b := range ct.NetworkSettings.Ports[key] {
		if p, err := strconv.ParseUint(b.HostPort, 10, 16); err == nil && p != 0 {
			return uint32(p), true
		}
	}
	return 0, false
}

// ReadBack is Stack.ReadBack's, for the target.
func (c *Copy) ReadBack(ctx context.Context) (results.Applied, error) {
	return c.stack.readBackOf(ctx, c.key)
}

// Logs is Stack.Logs's, for the target.
func (c *Copy) Logs(ctx context.Context, n int) (string, error) { return c.stack.logsOf(ctx, c.key, n) }

// Watch watches the target's service and the stack's services (the
// database, a pooler): a change of another target is not one of this
// one's.
func (c *Copy) Watch(ctx context.Context) (sweep.StackWatch, error) {
	return sweep.WatchTarget(ctx, func(ctx context.Context) (sweep.StackWatch, error) {
		return c.stack.watchOf(ctx, "the target of "+c.cell, map[string]string{c.key: c.stack.opts.Service})
	}, c.stack.Watch)
}

// Down removes the target's service and waits until its task and
// container are gone (its memory and connections back), as the stack's
// Down does.
func (c *Copy) Down(ctx context.Context) error {
	_, err := removeBy(ctx, c.stack.mgr, c.stack.nodes, []filters.Args{filters.NewArgs(
		filters.Arg("label", NamespaceLabel+"="+c.stack.project), filters.Arg("label", sweep.LabelTarget+"="+c.cell))})
	c.stack.mu.Lock()
	delete(c.stack.copies, c.key)
	c.stack.mu.Unlock()
	if err != nil {
		return fmt.Errorf("remove the target of %s: %w", c.cell, err)
	}
	return nil
}
