package remote

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// phase is one LoadRequest running as service id.
type phase struct {
	d    *Driver
	id   string
	name string
	req  sweep.LoadRequest
	// outcome gets the far end's last frame (result or error) from the
	// log follower, or its end without one.
	outcome chan outcome
	node    *results.NodeInfo
	// followed is true once the log follower ended without a last frame.
	followed bool
}

// outcome is what the log follower found (see Output).
type outcome Output

func newPhase(d *Driver, id, name string, req sweep.LoadRequest) *phase {
	return &phase{d: d, id: id, name: name, req: req, outcome: make(chan outcome, 1)}
}

// run waits for the far end's result, the task's end, req.Stop, ctx or
// the deadline, whichever comes first.
func (p *phase) run(ctx context.Context) (results.Measurement, error) {
	fctx, stopFollow := context.WithCancel(ctx)
	followed := make(chan struct{})
	go func() {
		defer close(followed)
		p.outcome <- p.follow(fctx)
	}()
	// the follower calls req.Interval: it must be done before Run returns
	defer func() { stopFollow(); <-followed }()

	deadline := time.NewTimer(p.d.opts.StartTimeout + p.req.Duration + endGrace)
	defer deadline.Stop()
	tick := time.NewTicker(p.d.opts.Poll)
	defer tick.Stop()
	stop := p.req.Stop
	for {
		select {
		case <-ctx.Done():
			return results.Measurement{}, fmt.Errorf("remote load: %w", ctx.Err())
		case <-stop:
			stop = nil
			if err := p.d.scaleToZero(ctx, p.id); err != nil {
				return results.Measurement{}, err
			}
			deadline.Reset(stopGrace + endGrace)
		case o := <-p.outcome:
			if o.Found {
				return p.finish(ctx, o)
			}
			// the stream ended without a result: the task's state decides
			p.followed = true
		case <-tick.C:
			t, ok, err := p.task(ctx)
			if err != nil {
				return results.Measurement{}, err
			}
			if ok && ended(t.Status.State) {
				return p.afterEnd(ctx, t)
			}
		case <-deadline.C:
			return results.Measurement{}, fmt.Errorf("load service %s: %w", p.name, ErrTimeout)
		}
	}
}

// task returns the service's task, when the swarm has made one, and
// learns the node it runs on.
func (p *phase) task(ctx context.Context) (swarm.Task, bool, error) {
	tasks, err := p.d.eng.TaskList(ctx, swarm.TaskListOptions{Filters: filters.NewArgs(filters.Arg("service", p.id))})
	if err != nil {
		return swarm.Task{}, false, fmt.Errorf("list tasks of load service %s: %w", p.name, err)
	}
	if len(tasks) == 0 {
		return swarm.Task{}, false, nil
	}
	t := tasks[0]
	if p.node == nil && t.NodeID != "" {
		p.node = p.d.node(ctx, t.NodeID)
	}
	return t, true, nil
}

// ended reports whether a task in state s will not run again.
func ended(s swarm.TaskState) bool {
	switch s {
	case swarm.TaskStateComplete, swarm.TaskStateShutdown, swarm.TaskStateFailed,
		swarm.TaskStateRejected, swarm.TaskStateOrphaned, swarm.TaskStateRemove:
		return true
	}
	return false
}

// afterEnd waits resultGrace for the follower's result once task t has
// ended, then reads the logs once more from the start: the log broker may
// forward the last lines after the task's end or not follow at all.
func (p *phase) afterEnd(ctx context.Context, t swarm.Task) (results.Measurement, error) {
	if !p.followed {
		grace := time.NewTimer(resultGrace)
		defer grace.Stop()
		select {
		case <-ctx.Done():
			return results.Measurement{}, fmt.Errorf("remote load: %w", ctx.Err())
		case o := <-p.outcome:
			if o.Found {
				return p.finish(ctx, o)
			}
		case <-grace.C:
		}
	}
	o := p.readAll(ctx)
	if o.Found {
		return p.finish(ctx, o)
	}
	if o.Err != nil {
		return results.Measurement{}, fmt.Errorf("read logs of load service %s: %w", p.name, o.Err)
	}
	return results.Measurement{}, &TaskError{Service: p.name, State: t.Status.State, Message: taskMessage(t), Tail: o.Tail}
}

// taskMessage is the swarm's word on why task t ended.
func taskMessage(t swarm.Task) string {
	msg := t.Status.Err
	if msg == "" {
		msg = t.Status.Message
	}
	if cs := t.Status.ContainerStatus; cs != nil && cs.ExitCode != 0 {
		msg += fmt.Sprintf(" (exit code %d)", cs.ExitCode)
	}
	return msg
}

// finish turns the far end's last frame into the phase's result, with
// the node the task ran on (asked now if no poll learnt it yet).
func (p *phase) finish(ctx context.Context, o outcome) (results.Measurement, error) {
	if p.node == nil {
		_, _, _ = p.task(ctx) // a node left unknown is no reason to lose the result
	}
	return Output(o).Measurement("service "+p.name, p.node, p.req.Dir)
}

// follow reads the service's logs as they come, hands interval frames to
// req.Interval and returns at the result or error frame, or when the
// stream ends.
func (p *phase) follow(ctx context.Context) outcome {
	return p.readLogs(ctx, true)
}

// readAll reads the logs so far from the start, without following.
func (p *phase) readAll(ctx context.Context) outcome {
	return p.readLogs(ctx, false)
}

// readLogs reads the service's logs (following them or not) through the
// frame parser until the far end's last frame.
func (p *phase) readLogs(ctx context.Context, follow bool) outcome {
	rc, err := p.d.eng.ServiceLogs(ctx, p.id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Follow: follow})
	if err != nil {
		return outcome{Err: err}
	}
	defer rc.Close()
	pr, pw := io.Pipe()
	go func() { _, err := stdcopy.StdCopy(pw, pw, rc); pw.CloseWithError(err) }()
	defer pr.Close()
	var onInterval func(results.Interval)
	if follow {
		onInterval = p.req.Interval
	}
	o := ReadOutput(pr, onInterval)
	if ctx.Err() != nil && !o.Found {
		o.Err = ctx.Err()
	}
	return outcome(o)
}
