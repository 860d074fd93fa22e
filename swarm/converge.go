package swarm

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/sweep"
)

// pollEvery is how often the stack asks the manager for the tasks while
// an update converges.
const pollEvery = 100 * time.Millisecond

// WaitReady waits until the last Apply converged: every changed service
// has its new tasks running (a task with a healthcheck runs only once
// healthy) and its old ones gone, and the target, when it has no
// healthcheck, answers HTTP 200 at ReadyURL. A new task that fails gives
// ErrTaskFailed at once; timeout, sweep.ErrNotReady with the last state.
func (s *Stack) WaitReady(ctx context.Context, timeout time.Duration) error {
	s.mu.Lock()
	u := s.pending
	s.mu.Unlock()
	if u == nil {
		u = &update{old: map[string]map[string]bool{s.opts.Service: nil}}
	}
	if err := s.converge(ctx, u, timeout); err != nil {
		return err
	}
	s.setPending(nil)
	return s.waitHTTP(ctx, s.opts.Service, s.opts.ReadyURL, timeout)
}

// converge polls the tasks of u's services until each converged.
func (s *Stack) converge(ctx context.Context, u *update, timeout time.Duration) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last []string
	for {
		last = last[:0]
		for _, svc := range slices.Sorted(maps.Keys(u.old)) {
			tasks, err := s.tasks(ctx, svc)
			if err != nil && ctx.Err() == nil {
				return err
			}
			state, err := converged(svc, tasks, u.old[svc], s.replicas(svc))
			if err != nil {
				return err
			}
			if state != "" {
				last = append(last, state)
			}
		}
		if len(last) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil { // the caller's end, not the timeout
				return fmt.Errorf("wait for the tasks: %w (last: %s)", context.Cause(parent), strings.Join(last, "; "))
			}
			return fmt.Errorf("%w: after %s: %s", sweep.ErrNotReady, timeout, strings.Join(last, "; "))
		case <-tick.C:
		}
	}
}

// replicas is how many tasks svc runs (0 for a global service: as many
// as the swarm schedules).
func (s *Stack) replicas(svc string) int {
	if r := s.specs[svc].Mode.Replicated; r != nil && r.Replicas != nil {
		return int(*r.Replicas)
	}
	return 0
}

// converged says what svc still waits for ("" when nothing): want new
// tasks running (0: every task the swarm wants running) and none of old
// still up. A new task that ended is an error.
func converged(svc string, tasks []swarm.Task, old map[string]bool, want int) (string, error) {
	running, scheduled, lingering := 0, 0, 0
	var states []string
	for _, t := range tasks {
		if old[t.ID] {
			if !ended(t.Status.State) {
				lingering++
			}
			continue
		}
		if t.DesiredState != swarm.TaskStateRunning {
			continue
		}
		scheduled++
		switch st := t.Status.State; {
		case st == swarm.TaskStateRunning:
			running++
		case ended(st):
			return "", fmt.Errorf("%w: %s task %s: %s", ErrTaskFailed, svc, short(t.ID), describeTask(t))
		default:
			states = append(states, string(st))
		}
	}
	if want == 0 {
		want = max(1, scheduled)
	}
	if running >= want && lingering == 0 {
		return "", nil
	}
	msg := fmt.Sprintf("%s: %d of %d new task(s) running", svc, running, want)
	if len(states) > 0 {
		msg += " (others " + strings.Join(states, ", ") + ")"
	}
	if lingering > 0 {
		msg += fmt.Sprintf(", %d old task(s) not gone", lingering)
	}
	return msg, nil
}

// ended reports whether a task in state st will not run again.
func ended(st swarm.TaskState) bool {
	switch st {
	case swarm.TaskStateComplete, swarm.TaskStateShutdown, swarm.TaskStateFailed,
		swarm.TaskStateRejected, swarm.TaskStateRemove, swarm.TaskStateOrphaned:
		return true
	}
	return false
}

// describeTask is a task's state, exit code and the engine's error.
func describeTask(t swarm.Task) string {
	parts := []string{"state " + string(t.Status.State)}
	if cs := t.Status.ContainerStatus; cs != nil && ended(t.Status.State) {
		parts = append(parts, fmt.Sprintf("exit code %d", cs.ExitCode))
	}
	if t.Status.Err != "" {
		parts = append(parts, "error "+t.Status.Err)
	} else if t.Status.Message != "" {
		parts = append(parts, t.Status.Message)
	}
	return strings.Join(parts, ", ")
}

// tasks lists the tasks of svc (every state): a service of the stack,
// or a target of an interleaved group by its copyKey.
func (s *Stack) tasks(ctx context.Context, svc string) ([]swarm.Task, error) {
	id, ok := s.serviceID(svc)
	if !ok {
		return nil, nil
	}
	tasks, err := s.mgr.TaskList(ctx, swarm.TaskListOptions{Filters: filters.NewArgs(filters.Arg("service", id))})
	if err != nil {
		return nil, fmt.Errorf("tasks of %s: %w", svc, err)
	}
	return tasks, nil
}

// taskIDs are the ids of svc's tasks that have not ended.
func (s *Stack) taskIDs(ctx context.Context, svc string) (map[string]bool, error) {
	tasks, err := s.tasks(ctx, svc)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, t := range tasks {
		if !ended(t.Status.State) {
			out[t.ID] = true
		}
	}
	return out, nil
}

// serviceID is the id of svc, a service of the stack or a target of an
// interleaved group (copyKey).
func (s *Stack) serviceID(svc string) (string, bool) {
	if id, ok := s.ids[svc]; ok {
		return id, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	id, ok := s.copies[svc]
	return id, ok
}

// waitHTTP polls url, the ready URL of name (the target or a target of
// an interleaved group), until it answers 200; at once without a ready
// URL or when the target has a healthcheck (its task runs only once
// healthy).
func (s *Stack) waitHTTP(ctx context.Context, name, url string, timeout time.Duration) error {
	if url == "" || s.specs[s.opts.Service].TaskTemplate.ContainerSpec.Healthcheck != nil {
		return nil
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	httpc := &http.Client{Timeout: 2 * time.Second}
	last := ""
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return fmt.Errorf("ready URL: %w", err)
		}
		resp, err := httpc.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("GET %s: %d", url, resp.StatusCode)
		} else {
			last = err.Error()
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil { // the caller's end, not the timeout
				return fmt.Errorf("wait for %s: %w (last: %s)", name, context.Cause(parent), last)
			}
			return fmt.Errorf("%w: %s after %s: %s", sweep.ErrNotReady, name, timeout, last)
		case <-time.After(pollEvery):
		}
	}
}

// short is an id as docker's listings show it.
func short(id string) string { return id[:min(12, len(id))] }
