package swarm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/sweep"
)

// update is a change of some services that has not converged yet: each
// service's tasks from before the change, which must be gone.
type update struct {
	old map[string]map[string]bool // compose service → task ids before
}

// StartDeps creates the stack's network and the services the target does
// not come before (compose.Base.Deps), in depends_on order: a service is
// created once those it depends on run and are healthy. It returns when
// all of them are, or fails naming the one that is not.
func (s *Stack) StartDeps(ctx context.Context, cfg sweep.TargetConfig, timeout time.Duration) error {
	if err := s.ensureNetwork(ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deps := s.base.Deps(s.opts.Service)
	for len(deps) > 0 {
		wave := s.wave(deps)
		if len(wave) == 0 {
			return fmt.Errorf("services %s depend on each other", strings.Join(deps, ", "))
		}
		u := &update{old: map[string]map[string]bool{}}
		for _, svc := range wave {
			if err := s.create(ctx, svc, cfg); err != nil {
				return err
			}
			u.old[svc] = nil
		}
		if err := s.converge(ctx, u, timeout); err != nil {
			return err
		}
		deps = slices.DeleteFunc(deps, func(d string) bool { return slices.Contains(wave, d) })
	}
	return nil
}

// wave lists the services of todo whose dependencies all exist already.
func (s *Stack) wave(todo []string) []string {
	var out []string
	for _, svc := range todo {
		ready := true
		for _, d := range s.base.DependsOn[svc] {
			if _, ok := s.ids[d]; !ok {
				ready = false
			}
		}
		if ready {
			out = append(out, svc)
		}
	}
	return out
}

// Apply sets the cell's configuration on the target: the first call
// creates it (and the services that come after it), later calls update
// its CPU limit, memory limit, env and labels, and the env of the
// services cfg.ServiceEnv names, forcing new tasks. It returns once the
// manager took the change; WaitReady waits for the new tasks.
func (s *Stack) Apply(ctx context.Context, cfg sweep.TargetConfig) error {
	if err := s.checkCPUSet(cfg); err != nil {
		return err
	}
	if err := s.ensureNetwork(ctx); err != nil {
		return err
	}
	u := &update{old: map[string]map[string]bool{}}
	if _, ok := s.ids[s.opts.Service]; !ok {
		for _, svc := range s.base.Services {
			if _, ok := s.ids[svc]; ok {
				continue
			}
			if err := s.create(ctx, svc, cfg); err != nil {
				return err
			}
			u.old[svc] = nil
		}
		s.setPending(u)
		return nil
	}
	for _, svc := range append([]string{s.opts.Service}, slices.Sorted(maps.Keys(cfg.ServiceEnv))...) {
		s.stopFirst(ctx, svc)
		old, err := s.taskIDs(ctx, svc)
		if err != nil {
			return err
		}
		if err := s.update(ctx, svc, cfg); err != nil {
			return err
		}
		u.old[svc] = old
	}
	s.setPending(u)
	return nil
}

// checkCPUSet refuses a cpuset: a swarm service has none.
func (s *Stack) checkCPUSet(cfg sweep.TargetConfig) error {
	if cfg.CPUSet != "" {
		return fmt.Errorf("%w", &UnsupportedError{Service: s.opts.Service, Field: "cpuset",
			Why: "a swarm service cannot pin its containers to CPUs"})
	}
	return nil
}

func (s *Stack) setPending(u *update) {
	s.mu.Lock()
	s.pending = u
	s.mu.Unlock()
}

// specFor is svc's spec with cfg applied: on the target the CPU and
// memory limits, env and labels; on others the env cfg.ServiceEnv gives.
func (s *Stack) specFor(svc string, cfg sweep.TargetConfig) (swarm.ServiceSpec, error) {
	spec := s.specs[svc]
	cs := *spec.TaskTemplate.ContainerSpec
	cs.Labels = maps.Clone(cs.Labels)
	env := cfg.ServiceEnv[svc]
	if svc == s.opts.Service {
		res := *spec.TaskTemplate.Resources
		limits := *res.Limits
		limits.NanoCPUs = nanoCPUs(cfg.CPUs)
		if cfg.Memory != "" {
			mem, err := sweep.MemoryBytes(cfg.Memory)
			if err != nil {
				return spec, err
			}
			limits.MemoryBytes = mem
		}
		res.Limits = &limits
		spec.TaskTemplate.Resources = &res
		env = cfg.Env
		maps.Copy(cs.Labels, cfg.Labels)
	}
	var err error
	if cs.Env, err = withEnv(cs.Env, env); err != nil {
		return spec, fmt.Errorf("service %s: %w", svc, err)
	}
	spec.TaskTemplate.ContainerSpec = &cs
	return spec, nil
}

// withEnv is base (KEY=VALUE, sorted) with set's variables replacing or
// added, sorted.
func withEnv(base []string, set map[string]string) ([]string, error) {
	m := map[string]string{}
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	for k, v := range set {
		if strings.ContainsAny(v, "\x00") || strings.ContainsAny(k, "=\x00") {
			return nil, fmt.Errorf("env %s: a NUL byte or = in the name cannot be passed", k)
		}
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out, nil
}

// create creates svc with cfg applied.
func (s *Stack) create(ctx context.Context, svc string, cfg sweep.TargetConfig) error {
	spec, err := s.specFor(svc, cfg)
	if err != nil {
		return err
	}
	resp, err := s.mgr.ServiceCreate(ctx, spec, swarm.ServiceCreateOptions{})
	if err != nil {
		return fmt.Errorf("create service %s: %w", spec.Name, err)
	}
	s.ids[svc] = resp.ID
	return nil
}

// update replaces svc's spec with cfg applied, forcing new tasks even
// when nothing else changed (a repetition of the same cell). The update
// names the service version it read; when the manager has changed the
// service since (it marks the previous cell's rolling update completed
// on its own, a moment after that update's tasks run) it refuses with
// "update out of sequence", and update reads the service again and
// retries, a few times, backing off.
func (s *Stack) update(ctx context.Context, svc string, cfg sweep.TargetConfig) error {
	spec, err := s.specFor(svc, cfg)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		cur, _, err := s.mgr.ServiceInspectWithRaw(ctx, s.ids[svc], swarm.ServiceInspectOptions{})
		if err != nil {
			return fmt.Errorf("inspect service %s: %w", svc, err)
		}
		spec.TaskTemplate.ForceUpdate = cur.Spec.TaskTemplate.ForceUpdate + 1
		_, err = s.mgr.ServiceUpdate(ctx, s.ids[svc], cur.Version, spec, swarm.ServiceUpdateOptions{})
		if err == nil {
			return nil
		}
		if !outOfSequence(err) || attempt == updateAttempts {
			return fmt.Errorf("update service %s: %w", cur.Spec.Name, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("update service %s: %w", cur.Spec.Name, ctx.Err())
		case <-time.After(time.Duration(attempt) * updateBackoff):
		}
	}
}

// updateAttempts bounds the updates of one service per cell, and
// updateBackoff × attempt is the wait before the next.
const updateAttempts = 5

var updateBackoff = 200 * time.Millisecond

// outOfSequence reports whether the manager refused an update because
// the service changed since the version it names (SwarmKit's
// errOutOfSequence, which reaches the client as an RPC error's text).
func outOfSequence(err error) bool {
	return strings.Contains(err.Error(), "update out of sequence")
}

// stopFirstSlack is how much longer than the stop grace period stopFirst
// may take: listing the tasks, reaching the nodes' engines, and the
// manager seeing the tasks end.
var stopFirstSlack = 15 * time.Second

// stopper is a node's engine that stops containers.
type stopper interface {
	ContainerStop(ctx context.Context, id string, opts container.StopOptions) error
}

// stopFirst stops svc's running containers itself, through their nodes'
// engines, and waits until the manager sees their tasks ended, before
// the update replaces them. The swarm's own stop of an updated task
// first sleeps 2 s for the overlay's gossip to converge (moby's
// executor, for any task on a network): a task that already ended is
// not stopped again, so the new one starts at once. It applies only
// where the service's restart policy replaces no ended task (condition
// none) and every container's node engine is reachable; otherwise, or
// when anything fails, the update stops the tasks as usual, which is
// what the converge then waits for. Either way the old tasks end before
// the new one runs, as a host-mode port needs. All of it is bounded by
// the stop grace period (the engine's 10 s default without one) and
// stopFirstSlack: a node engine that does not answer hands the stop
// back to the swarm instead of holding the cell.
func (s *Stack) stopFirst(ctx context.Context, svc string) {
	rp := s.specs[svc].TaskTemplate.RestartPolicy
	if rp == nil || rp.Condition != swarm.RestartPolicyConditionNone {
		return
	}
	bound := 10*time.Second + stopFirstSlack
	if g := s.specs[svc].TaskTemplate.ContainerSpec.StopGracePeriod; g != nil {
		bound = *g + stopFirstSlack
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	tasks, err := s.tasks(ctx, svc)
	if err != nil {
		return
	}
	type stop struct {
		eng stopper
		cid string
	}
	var stops []stop
	ids := map[string]bool{}
	for _, t := range tasks {
		if t.DesiredState != swarm.TaskStateRunning || ended(t.Status.State) {
			continue
		}
		cs := t.Status.ContainerStatus
		if t.Status.State != swarm.TaskStateRunning || cs == nil || cs.ContainerID == "" {
			return // starting or without a container yet: leave it to the swarm
		}
		n, err := s.nodes.get(ctx, t.NodeID)
		if err != nil || n.engine == nil {
			return
		}
		eng, ok := n.engine.(stopper)
		if !ok {
			return
		}
		stops = append(stops, stop{eng, cs.ContainerID})
		ids[t.ID] = true
	}
	var grace *int
	if g := s.specs[svc].TaskTemplate.ContainerSpec.StopGracePeriod; g != nil {
		sec := int(g.Seconds())
		grace = &sec
	}
	for _, st := range stops {
		if err := st.eng.ContainerStop(ctx, st.cid, container.StopOptions{Timeout: grace}); err != nil {
			return
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		tasks, err := s.tasks(wctx, svc)
		if err != nil {
			return
		}
		left := 0
		for _, t := range tasks {
			if ids[t.ID] && !ended(t.Status.State) {
				left++
			}
		}
		if left == 0 {
			return
		}
		select {
		case <-wctx.Done():
			return
		case <-time.After(pollEvery / 4):
		}
	}
}
