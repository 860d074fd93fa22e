package swarm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/sweep-tool/sweep/results"
)

// running returns svc's newest running task (ErrNoTask when none runs).
func (s *Stack) running(ctx context.Context, svc string) (swarm.Task, error) {
	tasks, err := s.tasks(ctx, svc)
	if err != nil {
		return swarm.Task{}, err
	}
	tasks = slices.DeleteFunc(tasks, func(t swarm.Task) bool {
		return t.Status.State != swarm.TaskStateRunning || t.DesiredState != swarm.TaskStateRunning
	})
	if len(tasks) == 0 {
		return swarm.Task{}, fmt.Errorf("%w: service %s of stack %s", ErrNoTask, svc, s.project)
	}
	return slices.MaxFunc(tasks, func(a, b swarm.Task) int { return a.CreatedAt.Compare(b.CreatedAt) }), nil
}

// ReadBack returns the target's configuration: from its container,
// through its node's engine, when reachable (CPU limit, memory limit,
// swept env, container id and start); else from the running task's spec
// and status, with ReadFrom saying why. Nodes names the node of every
// service's running task.
func (s *Stack) ReadBack(ctx context.Context) (results.Applied, error) {
	return s.readBackOf(ctx, s.opts.Service)
}

// readBackOf is ReadBack of svc, the target or a target of an
// interleaved group (copyKey), named the target in Nodes. Where its
// node's engine is reachable, the samplers' Engine reaches its container.
func (s *Stack) readBackOf(ctx context.Context, svc string) (results.Applied, error) {
	t, err := s.running(ctx, svc)
	if err != nil {
		return results.Applied{}, err
	}
	a := fromTask(t, s.opts.SweptEnv)
	if a.Nodes, err = s.Placement(ctx); err != nil {
		return a, err
	}
	n, err := s.nodes.get(ctx, t.NodeID)
	if err == nil {
		a.Nodes[s.opts.Service] = n.ref
	}
	switch {
	case err != nil:
		a.ReadFrom = "task: " + err.Error()
	case n.engine == nil:
		a.ReadFrom = "task: " + n.why
	default:
		c, err := n.engine.ContainerInspect(ctx, a.ContainerID)
		if err != nil {
			return a, fmt.Errorf("inspect %s on node %s: %w", svc, t.NodeID, err)
		}
		fromContainer(&a, c, s.opts.SweptEnv)
		s.route.set(a.ContainerID, n.engine)
	}
	return a, nil
}

// fromTask is what a task's spec and status say the target runs with.
func fromTask(t swarm.Task, swept []string) results.Applied {
	a := results.Applied{Env: map[string]string{}}
	if r := t.Spec.Resources; r != nil && r.Limits != nil {
		a.CPUs, a.MemoryBytes = float64(r.Limits.NanoCPUs)/1e9, r.Limits.MemoryBytes
	}
	if cs := t.Spec.ContainerSpec; cs != nil {
		a.Env = pick(cs.Env, swept)
	}
	if cs := t.Status.ContainerStatus; cs != nil {
		a.ContainerID = cs.ContainerID
	}
	a.ContainerStartedAt = t.Status.Timestamp
	return a
}

// fromContainer overwrites a with what the container's engine reports.
func fromContainer(a *results.Applied, c container.InspectResponse, swept []string) {
	a.ReadFrom = "container"
	if c.HostConfig != nil {
		a.CPUs, a.MemoryBytes = float64(c.HostConfig.NanoCPUs)/1e9, c.HostConfig.Memory
	}
	if c.Config != nil {
		a.Env = pick(c.Config.Env, swept)
	}
	if c.State != nil {
		a.ContainerStartedAt, _ = time.Parse(time.RFC3339Nano, c.State.StartedAt)
	}
}

// pick returns the values of names from a KEY=VALUE list; for a repeated
// key the last one wins.
func pick(env, names []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		for _, n := range names {
			if v, ok := strings.CutPrefix(kv, n+"="); ok {
				out[n] = v
			}
		}
	}
	return out
}

// Placement names the node of each service's running task (the newest
// one of a service with several).
func (s *Stack) Placement(ctx context.Context) (map[string]results.NodeInfo, error) {
	out := map[string]results.NodeInfo{}
	for svc := range s.ids {
		t, err := s.running(ctx, svc)
		if err != nil {
			continue // a one-shot service that finished, or one not running: the watch says so
		}
		n, err := s.nodes.get(ctx, t.NodeID)
		if err != nil {
			return nil, err
		}
		out[svc] = n.ref
	}
	return out, nil
}

// Logs returns the last n lines (all when n <= 0) of the target's newest
// task, running or not, through the manager (it reaches every node).
func (s *Stack) Logs(ctx context.Context, n int) (string, error) {
	return s.logsOf(ctx, s.opts.Service, n)
}

// logsOf is Logs of svc, the target or a target of an interleaved group
// (copyKey).
func (s *Stack) logsOf(ctx context.Context, svc string, n int) (string, error) {
	tasks, err := s.tasks(ctx, svc)
	if err != nil {
		return "", err
	}
	if len(tasks) == 0 {
		return "", fmt.Errorf("%w: service %s has no task", ErrNoTask, svc)
	}
	t := slices.MaxFunc(tasks, func(a, b swarm.Task) int { return a.CreatedAt.Compare(b.CreatedAt) })
	tail := "all"
	if n > 0 {
		tail = strconv.Itoa(n)
	}
	rc, err := s.mgr.TaskLogs(ctx, t.ID, container.LogsOptions{ShowStdout: true, ShowStderr: true, Tail: tail})
	if err != nil {
		return "", fmt.Errorf("logs of %s task %s: %w", svc, short(t.ID), err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if cs := t.Spec.ContainerSpec; cs != nil && cs.TTY {
		_, err = io.Copy(&buf, rc)
	} else {
		_, err = stdcopy.StdCopy(&buf, &buf, rc)
	}
	head := fmt.Sprintf("--- task %s on node %s: %s ---\n", short(t.ID), t.NodeID, describeTask(t))
	if err != nil {
		return head + buf.String(), fmt.Errorf("read logs of %s: %w", svc, err)
	}
	return head + buf.String(), nil
}
