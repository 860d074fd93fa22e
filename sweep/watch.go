package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// errStackChanged cancels a cell's load once its watch saw a change: the
// rest of the phase could not be recorded anyway.
var errStackChanged = errors.New("the stack changed")

// phaseStarts are the start times of a cell's load phases, in order, so
// each event of the stack can be placed in its phase.
type phaseStarts struct {
	names []string
	at    []time.Time
}

func (p *phaseStarts) mark(name string, at time.Time) {
	p.names, p.at = append(p.names, name), append(p.at, at)
}

// place sets the phase of ev and its seconds into that phase. An event
// before the first phase (a container found not running when the watch
// began) counts as at its start.
func (p *phaseStarts) place(ev *results.StackEvent) {
	if len(p.at) == 0 {
		return
	}
	i := 0
	for j, at := range p.at {
		if !ev.At.Before(at) {
			i = j
		}
	}
	ev.Phase = p.names[i]
	ev.T = max(0, ev.At.Sub(p.at[i]).Round(time.Millisecond).Seconds())
}

// watched runs load (the warm-up and the measured phase) while the stack
// is watched. A change seen stops the load early and fails the cell with
// the changes in rec.Events; a watch that broke fails it too, since the
// stack may have changed unseen.
func (r *Runner) watched(ctx context.Context, rec *results.Record, starts *phaseStarts,
	load func(ctx context.Context) error) error {
	var w StackWatch
	endWatch, err := boundedStart(ctx, r.call("watch", 0, OfCallTimeout), func(ctx context.Context) (err error) {
		w, err = r.current.Watch(ctx)
		return err
	})
	defer endWatch() // the watch's context, once Stop ended it
	if err != nil {
		return fmt.Errorf("watch the stack: %w", err)
	}
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-w.Changed():
			cancel(errStackChanged)
		case <-lctx.Done():
		}
	}()
	loadErr := load(lctx)
	stopped, err := BoundedGet(context.WithoutCancel(ctx), r.call("watch stop", 0, OfCallTimeout), func(ctx context.Context) (watchStop, error) {
		events, err := w.Stop(ctx)
		return watchStop{events, err}, err
	})
	if errors.Is(err, ErrCallTimeout) {
		return fmt.Errorf("watch the stack: %w", err)
	}
	events, werr := stopped.events, stopped.err
	for i := range events {
		starts.place(&events[i])
	}
	rec.Events = events
	switch {
	case len(events) > 0:
		return errors.New(describeEvents(events))
	case loadErr == nil && werr != nil:
		return fmt.Errorf("watch the stack: %w", werr)
	}
	return loadErr
}

// watchStop is what a StackWatch's Stop returned.
type watchStop struct {
	events []results.StackEvent
	err    error
}

// stillSame fails a cell whose target container is no longer the one
// whose configuration was read back, or whose process restarted since (a
// restart keeps the container's id): the record would describe another
// process. From here on the watch covers it.
func (r *Runner) stillSame(ctx context.Context, rec *results.Record) error {
	now, err := BoundedGet(ctx, r.call("read back", 0, OfCallTimeout), r.current.ReadBack)
	if err != nil {
		return fmt.Errorf("target before the load: %w", err)
	}
	was := rec.Applied
	switch {
	case now.ContainerID != was.ContainerID:
		return fmt.Errorf("target container was replaced since it was read back (%.12s → %.12s)",
			was.ContainerID, now.ContainerID)
	case !now.ContainerStartedAt.Equal(was.ContainerStartedAt):
		return fmt.Errorf("target restarted since it was read back (started %s, now %s)",
			was.ContainerStartedAt.Format(time.RFC3339Nano), now.ContainerStartedAt.Format(time.RFC3339Nano))
	}
	return nil
}

// describeEvents is the reason of a cell whose stack changed: the first
// few changes, with the service, what happened and when.
func describeEvents(events []results.StackEvent) string {
	const shown = 3
	parts := make([]string, 0, shown)
	for _, ev := range events[:min(shown, len(events))] {
		who := ev.Service
		if ev.Target {
			who += " (the target)"
		}
		what := ev.Action
		if verb, ok := eventVerbs[ev.Action]; ok {
			what = verb
		}
		if ev.Detail != "" {
			what += " (" + ev.Detail + ")"
		}
		parts = append(parts, fmt.Sprintf("%s %s %.1f s into the %s", who, what, ev.T, phaseName(ev.Phase)))
	}
	if n := len(events) - shown; n > 0 {
		parts = append(parts, fmt.Sprintf("%d more in events", n))
	}
	return "the stack changed during the load: " + strings.Join(parts, "; ")
}

// eventVerbs say the actions of results.StackEvent in a sentence.
var eventVerbs = map[string]string{
	"die": "exited", "oom": "was OOM-killed", "start": "started", "restart": "restarted",
	"pause": "was paused", "unpause": "was unpaused", "destroy": "was removed",
	"replaced": "was replaced", "gone": "is gone", "appeared": "appeared",
	"not-running": "was not running", "paused": "was paused",
}

// phaseName is a load phase as a reason says it.
func phaseName(phase string) string {
	switch phase {
	case "warmup":
		return "warm-up"
	case "measure":
		return "measured phase"
	}
	return "load"
}

// ChangeLog collects the changes a StackWatch sees, in order, and closes
// Changed at the first one: the part every backend's watch shares. The
// zero value is ready; it is safe for concurrent use.
type ChangeLog struct {
	once    sync.Once
	mu      sync.Mutex
	seen    []results.StackEvent
	changed chan struct{}
}

func (c *ChangeLog) init() { c.once.Do(func() { c.changed = make(chan struct{}) }) }

// Changed is closed when the first change is added.
func (c *ChangeLog) Changed() <-chan struct{} {
	c.init()
	return c.changed
}

// Add records ev, closing Changed if it is the first.
func (c *ChangeLog) Add(ev results.StackEvent) {
	c.init()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) == 0 {
		close(c.changed)
	}
	c.seen = append(c.seen, ev)
}

// Events returns the changes added so far, in order.
func (c *ChangeLog) Events() []results.StackEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.seen)
}

// WatchTarget is a target's watch (Target.Watch): own, of the target's
// own container or service, joined with shared, of the stack's shared
// services. When shared cannot start, own is stopped again (within 30 s,
// ctx cancelled or not).
func WatchTarget(ctx context.Context, own, shared func(context.Context) (StackWatch, error)) (StackWatch, error) {
	o, err := own(ctx)
	if err != nil {
		return nil, err
	}
	sh, err := shared(ctx)
	if err != nil {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_, _ = o.Stop(sctx)
		return nil, err
	}
	return JoinWatches(ctx, o, sh), nil
}

// JoinWatches is one StackWatch of several (a target's own and its
// stack's shared services'): changed when any of them is; Stop stops
// each and returns their changes in time order, and their errors. It
// follows them until Stop or the end of ctx.
func JoinWatches(ctx context.Context, ws ...StackWatch) StackWatch {
	ctx, cancel := context.WithCancel(ctx)
	j := &joined{ws: ws, changed: make(chan struct{}), cancel: cancel}
	for _, w := range ws {
		go func() {
			select {
			case <-w.Changed():
				j.once.Do(func() { close(j.changed) })
			case <-ctx.Done():
			}
		}()
	}
	return j
}

type joined struct {
	ws      []StackWatch
	once    sync.Once
	changed chan struct{}
	cancel  context.CancelFunc
}

func (j *joined) Changed() <-chan struct{} { return j.changed }

func (j *joined) Stop(ctx context.Context) ([]results.StackEvent, error) {
	j.cancel()
	var all []results.StackEvent
	var errs []error
	for _, w := range j.ws {
		evs, err := w.Stop(ctx)
		all, errs = append(all, evs...), append(errs, err)
	}
	slices.SortStableFunc(all, func(a, b results.StackEvent) int { return a.At.Compare(b.At) })
	return all, errors.Join(errs...)
}
