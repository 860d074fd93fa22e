package swarm

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// watchEvery is how often a watch asks the manager for the stack's
// tasks: a task that ends is seen within this time.
const watchEvery = 200 * time.Millisecond

// taskState is one running task as a watch saw it first.
type taskState struct {
	service, container, node string
	started                  time.Time // the container's start, where its node is reachable
}

// Watch starts watching every service of the stack through the manager:
// a task of the stack that stops running, or a new task that appears (a
// swarm restarts a container by starting a new task), is a change; so is
// a service with fewer running tasks than it wants when the watch
// starts. On Stop, each container seen first is looked at again through
// its node's engine where reachable: a new start time (a restart in
// place) or a pause is a change too. It implements sweep.Stack's Watch.
func (s *Stack) Watch(ctx context.Context) (sweep.StackWatch, error) {
	scope := map[string]string{}
	for svc := range s.ids {
		scope[svc] = svc
	}
	return s.watchOf(ctx, "the stack", scope)
}

// watchOf is Watch of the services in scope (a service of the stack or
// a target of an interleaved group, copyKey → the service its changes
// name), what for the message of an error.
func (s *Stack) watchOf(ctx context.Context, what string, scope map[string]string) (sweep.StackWatch, error) {
	w := &watch{stack: s, scope: scope, done: make(chan struct{})}
	before, missing, err := w.look(ctx)
	if err != nil {
		return nil, fmt.Errorf("look at %s: %w", what, err)
	}
	lctx, cancel := context.WithCancel(ctx)
	w.before, w.stop = before, cancel
	now := time.Now()
	for _, svc := range missing {
		w.Add(results.StackEvent{Service: scope[svc], Target: scope[svc] == s.opts.Service, Action: "not-running", At: now,
			Detail: "fewer running tasks than the service wants"})
	}
	for id, ts := range before {
		if n, err := s.nodes.get(ctx, ts.node); err == nil && n.engine != nil {
			if c, err := n.engine.ContainerInspect(ctx, ts.container); err == nil && c.State != nil {
				ts.started, _ = time.Parse(time.RFC3339Nano, c.State.StartedAt)
				before[id] = ts
			}
		}
	}
	go w.loop(lctx)
	return w, nil
}

// look lists the running tasks of every service in scope, and the
// services that run fewer than they want.
func (w *watch) look(ctx context.Context) (map[string]taskState, []string, error) {
	s := w.stack
	out := map[string]taskState{}
	var missing []string
	for svc := range w.scope {
		tasks, err := s.tasks(ctx, svc)
		if err != nil {
			return nil, nil, err
		}
		n := 0
		for _, t := range tasks {
			if t.Status.State == swarm.TaskStateRunning && t.DesiredState == swarm.TaskStateRunning {
				n++
				ts := taskState{service: w.scope[svc], node: t.NodeID}
				if t.Status.ContainerStatus != nil {
					ts.container = t.Status.ContainerStatus.ContainerID
				}
				out[t.ID] = ts
			}
		}
		if want := s.replicas(svc); n < max(1, want) {
			missing = append(missing, svc)
		}
	}
	slices.Sort(missing)
	return out, missing, nil
}

// watch is one Watch in progress.
type watch struct {
	sweep.ChangeLog
	stack  *Stack
	scope  map[string]string // the services watched → the service their changes name
	before map[string]taskState
	stop   context.CancelFunc // ends the loop, a poll under way too
	done   chan struct{}
	known  map[string]bool // tasks already reported; the loop's until done

	mu  sync.Mutex
	err error
}

var _ sweep.StackWatch = (*watch)(nil)

// loop polls the tasks until Stop.
func (w *watch) loop(ctx context.Context) {
	defer close(w.done)
	w.known = map[string]bool{}
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := w.poll(ctx); err != nil && ctx.Err() == nil {
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
			return
		}
	}
}

// poll compares the stack's tasks with the first look once.
func (w *watch) poll(ctx context.Context) error {
	s := w.stack
	for svc, name := range w.scope {
		tasks, err := s.tasks(ctx, svc)
		if err != nil {
			return err
		}
		for _, t := range tasks {
			if w.known[t.ID] {
				continue
			}
			_, was := w.before[t.ID]
			ev := results.StackEvent{Service: name, Target: name == s.opts.Service, At: t.Status.Timestamp}
			switch {
			case was && t.Status.State != swarm.TaskStateRunning:
				ev.Action, ev.Detail = "die", "task "+short(t.ID)+": "+describeTask(t)
			case !was && t.DesiredState == swarm.TaskStateRunning:
				ev.Action, ev.Detail = "appeared", "task "+short(t.ID)+": "+describeTask(t)
				ev.At = t.CreatedAt
			default:
				continue
			}
			w.known[t.ID] = true
			w.Add(ev)
		}
	}
	return nil
}

// Stop ends the polling, polls once more and looks at each container
// seen first through its node's engine; it returns every change seen.
func (w *watch) Stop(ctx context.Context) ([]results.StackEvent, error) {
	w.stop()
	<-w.done
	w.mu.Lock()
	err := w.err
	w.mu.Unlock()
	if err == nil {
		err = w.poll(ctx)
	}
	w.restarts(ctx)
	if err != nil {
		err = fmt.Errorf("poll the stack's tasks: %w", err)
	}
	events := w.Events()
	slices.SortStableFunc(events, func(a, b results.StackEvent) int { return a.At.Compare(b.At) })
	return events, err
}

// restarts adds a change for each container seen first that restarted in
// place or is paused now, where its node's engine is reachable.
func (w *watch) restarts(ctx context.Context) {
	for id, ts := range w.before {
		if w.known[id] || ts.started.IsZero() {
			continue
		}
		n, err := w.stack.nodes.get(ctx, ts.node)
		if err != nil || n.engine == nil {
			continue
		}
		c, err := n.engine.ContainerInspect(ctx, ts.container)
		if err != nil || c.State == nil {
			continue
		}
		ev := results.StackEvent{Service: ts.service, Target: ts.service == w.stack.opts.Service, At: time.Now()}
		started, _ := time.Parse(time.RFC3339Nano, c.State.StartedAt)
		switch {
		case !started.Equal(ts.started):
			ev.Action, ev.Detail, ev.At = "restart", "container "+short(ts.container), started
		case c.State.Paused:
			ev.Action = "pause"
		case c.State.Status != container.StateRunning:
			ev.Action, ev.Detail = "die", fmt.Sprintf("container %s: status %s, exit code %d", short(ts.container), c.State.Status, c.State.ExitCode)
		default:
			continue
		}
		w.Add(ev)
	}
}
