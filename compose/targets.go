package compose

// The targets of an interleaved group (sweep.Targets). The target service
// is applied once with the group's first cell, as compose makes it (its
// image, command, healthcheck, networks, volumes and env, with the run's
// labels); that container is the template of the group's copies and is
// removed once they are made. Each copy is a container of its own made
// through the Engine API: the template's configuration with its cell's
// env on top, its CPU limit, memory and cpuset, the run's labels, its
// cell's sweep.cell and sweep.target, no compose labels (compose and the
// stack's watch leave it alone; cleanup by the run's label removes it),
// on the template's networks without its aliases, and only the port the
// URL reaches published, on a free port of this host. Nothing of the
// configuration reaches the run directory but the override.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/go-connections/nat"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

var _ sweep.Targets = (*Stack)(nil)

// unsafeName are the characters a container name cannot hold.
var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// StartTargets starts one copy of the target per cfg (see above) and
// returns them in cfgs' order, without waiting for them; on an error it
// removes what it made. The URL (Options.URL) must reach the target at a
// port it publishes on this host.
func (s *Stack) StartTargets(ctx context.Context, cfgs []sweep.TargetConfig) ([]sweep.Target, error) {
	if len(cfgs) == 0 {
		return nil, nil
	}
	base, err := sweep.TargetBase(s.opts.URL)
	if err != nil {
		return nil, err
	}
	if err := s.Apply(ctx, cfgs[0]); err != nil {
		return nil, fmt.Errorf("the template: %w", err)
	}
	id, err := s.target(ctx)
	if err != nil {
		return nil, fmt.Errorf("the template: %w", err)
	}
	tmpl, err := s.eng.ContainerInspect(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("inspect the template: %w", err)
	}
	if err := s.eng.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
		return nil, fmt.Errorf("remove the template: %w", err)
	}
	port, err := publishedPort(tmpl, base)
	if err != nil {
		return nil, err
	}
	if err := s.checkMemory(ctx, tmpl, cfgs); err != nil {
		return nil, err
	}
	return sweep.StartEach(ctx, cfgs, func(cfg sweep.TargetConfig) (sweep.Target, error) {
		return s.startCopy(ctx, tmpl, cfg, base, port)
	})
}

// checkMemory is sweep.CheckTargetsMemory against the engine's memory,
// a target without a limit of its cell's having the template's.
func (s *Stack) checkMemory(ctx context.Context, tmpl container.InspectResponse, cfgs []sweep.TargetConfig) error {
	info, err := s.eng.Info(ctx)
	if err != nil {
		return fmt.Errorf("the engine's memory: %w", err)
	}
	return sweep.CheckTargetsMemory(cfgs, tmpl.HostConfig.Memory, info.MemTotal, "the engine", s.opts.Log, s.opts.Service)
}

// publishedPort is the template's container port that the URL's host
// port publishes.
func publishedPort(tmpl container.InspectResponse, base *url.URL) (nat.Port, error) {
	hostPort := sweep.URLPort(base)
	if tmpl.HostConfig != nil {
		for p, bindings := range tmpl.HostConfig.PortBindings {
			for _, b := range bindings {
				if b.HostPort == hostPort {
					return p, nil
				}
			}
		}
	}
	return "", sweep.BadInput("url", "%s: port %s is not one the target publishes; an interleaved run gives each target "+
		"a port of its own, so the URL must reach the target directly", base.Redacted(), hostPort)
}

// startCopy makes and starts cfg's copy of tmpl, its container port
// published on a free port of this host.
func (s *Stack) startCopy(ctx context.Context, tmpl container.InspectResponse, cfg sweep.TargetConfig, base *url.URL, port nat.Port) (*Copy, error) {
	cell := cfg.Labels[sweep.LabelCell]
	config := *tmpl.Config
	config.Hostname = ""
	config.Env = withEnv(tmpl.Config.Env, cfg.Env)
	config.Labels = map[string]string{}
	for k, v := range tmpl.Config.Labels {
		if !strings.HasPrefix(k, "com.docker.compose.") {
			config.Labels[k] = v
		}
	}
	maps.Copy(config.Labels, s.labels.Map())
	maps.Copy(config.Labels, cfg.Labels)
	config.Labels[sweep.LabelTarget] = cell
	host := *tmpl.HostConfig
	host.NanoCPUs, host.CPUQuota, host.CPUPeriod = int64(cfg.CPUs*1e9), 0, 0
	host.CpusetCpus = cfg.CPUSet
	if cfg.Memory != "" {
		mem, err := sweep.MemoryBytes(cfg.Memory)
		if err != nil {
			return nil, err
		}
		host.Memory = mem
	}
	bindIP := ""
	if b := tmpl.HostConfig.PortBindings[port]; len(b) > 0 {
		bindIP = b[0].HostIP
	}
	host.PortBindings = nat.PortMap{port: {{HostIP: bindIP, HostPort: ""}}}
	host.PublishAllPorts = false
	nets := slices.Sorted(maps.Keys(tmpl.NetworkSettings.Networks))
	var first *network.NetworkingConfig
	if len(nets) > 0 {
		first = &network.NetworkingConfig{EndpointsConfig: map[string]*network.EndpointSettings{
			nets[0]: {NetworkID: tmpl.NetworkSettings.Networks[nets[0]].NetworkID}}}
	}
	name := unsafeName.ReplaceAllString(fmt.Sprintf("%s-%s-%s", s.project, s.opts.Service, cell), "_")
	made, err := s.eng.ContainerCreate(ctx, &config, &host, first, nil, name)
	if err != nil {
		return nil, fmt.Errorf("create the target of %s: %w", cell, err)
	}
	c := &Copy{stack: s, id: made.ID, cell: cell}
	for _, n := range nets[min(1, len(nets)):] {
		if err := s.eng.NetworkConnect(ctx, tmpl.NetworkSettings.Networks[n].NetworkID, made.ID, &network.EndpointSettings{}); err != nil {
			return nil, errors.Join(fmt.Errorf("connect the target of %s to %s: %w", cell, n, err), c.remove(ctx))
		}
	}
	if err := s.eng.ContainerStart(ctx, made.ID, container.StartOptions{}); err != nil {
		return nil, errors.Join(fmt.Errorf("start the target of %s: %w", cell, err), c.remove(ctx))
	}
	in, err := s.eng.ContainerInspect(ctx, made.ID)
	if err == nil && (in.NetworkSettings == nil || len(in.NetworkSettings.Ports[port]) == 0) {
		err = fmt.Errorf("no host port published for %s", port)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("the target of %s: %w", cell, err), c.remove(ctx))
	}
	c.url, c.ready = sweep.TargetURLs(base, s.opts.ReadyURL, in.NetworkSettings.Ports[port][0].HostPort)
	return c, nil
}

// withEnv is env (KEY=VALUE) with set's variables set.
func withEnv(env []string, set map[string]string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := set[k]
		return ok
	})
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}

// Copy is one target of an interleaved group (a sweep.Target).
type Copy struct {
	stack    *Stack
	id, cell string
	url      string
	ready    string // the ready URL at the copy's port; "" with none
}

var _ sweep.Target = (*Copy)(nil)

// URL is the base URL at the copy's own port.
func (c *Copy) URL() string { return c.url }

// WaitReady waits as Stack.WaitReady does, for the copy.
func (c *Copy) WaitReady(ctx context.Context, timeout time.Duration) error {
	return c.stack.waitReady(ctx, timeout, c.cell, func(ctx context.Context, httpc *http.Client) (bool, string, error) {
		return c.stack.readyOf(ctx, httpc, c.id, c.ready)
	})
}

// ReadBack is Stack.ReadBack's, for the copy.
func (c *Copy) ReadBack(ctx context.Context) (results.Applied, error) {
	return c.stack.readBackOf(ctx, c.id)
}

// Logs is Stack.Logs's, for the copy.
func (c *Copy) Logs(ctx context.Context, n int) (string, error) { return c.stack.logsOf(ctx, c.id, n) }

// Watch watches the copy and the stack's compose services (the database,
// a pooler): a change of another copy is not one of this one's.
func (c *Copy) Watch(ctx context.Context) (sweep.StackWatch, error) {
	return sweep.WatchTarget(ctx, func(ctx context.Context) (sweep.StackWatch, error) {
		return c.stack.watchIn(ctx, scope{name: "the target of " + c.cell, label: sweep.LabelTarget + "=" + c.cell,
			service: func(map[string]string) string { return c.stack.opts.Service }})
	}, c.stack.Watch)
}

// removeBound bounds removing a copy that failed to start, also after
// Ctrl-C.
const removeBound = 30 * time.Second

// remove removes the copy within removeBound of now, ctx cancelled or
// not.
func (c *Copy) remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeBound)
	defer cancel()
	return c.Down(ctx)
}

// Down removes the copy.
func (c *Copy) Down(ctx context.Context) error {
	err := c.stack.eng.ContainerRemove(ctx, c.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil {
		return fmt.Errorf("remove the target of %s: %w", c.cell, err)
	}
	return nil
}
