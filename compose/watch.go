package compose

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// watchedActions are the engine's container events that change the stack:
// a process ended, was killed for memory, (re)started, froze or thawed, or
// its container was removed. Healthcheck execs and the like are not
// asked for.
var watchedActions = []events.Action{
	events.ActionDie, events.ActionOOM, events.ActionStart, events.ActionRestart,
	events.ActionPause, events.ActionUnPause, events.ActionDestroy,
}

// Watch starts watching every container of the stack's compose project
// through the Engine API: the engine's container events (die, oom, start,
// restart, pause, unpause, destroy), and a look at each container's state
// when the watch starts and when it stops. The first look finds a service
// that is not running (or paused) as the load begins; the last one finds
// a change the event stream missed (a new start time or restart count, a
// replaced, stopped or paused container). A one-shot service that exited
// with code 0 before the watch is not a change. It implements
// sweep.Stack's Watch.
func (s *Stack) Watch(ctx context.Context) (sweep.StackWatch, error) {
	return s.watchIn(ctx, s.projectScope())
}

// watchIn is Watch over the containers of sc.
func (s *Stack) watchIn(ctx context.Context, sc scope) (sweep.StackWatch, error) {
	since := time.Now()
	before, err := s.lookIn(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("look at the stack: %w", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	args := filters.NewArgs(filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("label", sc.label))
	for _, a := range watchedActions {
		args.Add("event", string(a))
	}
	// Since replays what the engine published while the stream was being
	// set up.
	msgs, errs := s.eng.Events(wctx, events.ListOptions{Since: fmt.Sprintf("%d.%09d", since.Unix(), since.Nanosecond()),
		Filters: args})
	w := &watch{stack: s, scope: sc, before: before, since: since, cancel: cancel, done: make(chan struct{})}
	for _, ev := range before.notRunning(s.opts.Service, since) {
		w.Add(ev)
	}
	go w.loop(msgs, errs)
	return w, nil
}

// watch is one Watch in progress.
type watch struct {
	sweep.ChangeLog
	stack  *Stack
	scope  scope
	before states
	since  time.Time
	cancel context.CancelFunc
	done   chan struct{} // closed when loop returns

	mu       sync.Mutex
	err      error // the stream's error, when it broke
	stopping bool
}

var _ sweep.StackWatch = (*watch)(nil)

// loop takes the stream's events until it ends; an end that Stop did not
// cause is the watch's error.
func (w *watch) loop(msgs <-chan events.Message, errs <-chan error) {
	defer close(w.done)
	for {
		select {
		case m := <-msgs:
			w.Add(w.stack.eventOf(m, w.scope))
		case err := <-errs:
			w.mu.Lock()
			if !w.stopping {
				if err == nil {
					err = errors.New("closed")
				}
				w.err = fmt.Errorf("engine event stream: %w", err)
			}
			w.mu.Unlock()
			return
		}
	}
}

// Stop looks at the containers once more, ends the stream and returns
// what the watch saw: the events, then what the last look found that no
// event explains.
func (w *watch) Stop(ctx context.Context) ([]results.StackEvent, error) {
	after, lookErr := w.stack.lookIn(ctx, w.scope)
	w.mu.Lock()
	w.stopping = true
	w.mu.Unlock()
	w.cancel()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if lookErr != nil {
		return w.Events(), errors.Join(w.err, fmt.Errorf("look at the stack: %w", lookErr))
	}
	explained := map[string]bool{}
	for _, ev := range w.Events() {
		explained[ev.Service] = true
	}
	for _, ev := range diffStates(w.before, after, w.stack.opts.Service, time.Now()) {
		if !explained[ev.Service] {
			w.Add(ev)
		}
	}
	return w.Events(), w.err
}

// eventOf turns an engine event of a container of sc into a stack event.
func (s *Stack) eventOf(m events.Message, sc scope) results.StackEvent {
	svc := sc.service(m.Actor.Attributes)
	ev := results.StackEvent{Service: svc, Target: svc == s.opts.Service, Action: string(m.Action),
		At: time.Unix(0, m.TimeNano)}
	if code, ok := m.Actor.Attributes["exitCode"]; ok && m.Action == events.ActionDie {
		ev.Detail = "exit code " + code
	}
	return ev
}
