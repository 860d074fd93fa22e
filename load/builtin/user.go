package builtin

import (
	"errors"
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
)

// user is one virtual user: a connection, a shard to record into, and the
// scenario's state of its current iteration. It is the scenario.Doer and
// scenario.Recorder its iterations run through, and belongs to one
// goroutine.
type user struct {
	p          *phase
	c          *client
	shard      *shard
	vu         *scenario.VU
	iterations int64 // finished iterations
	back       backoff

	late  time.Duration // how late the iteration began (open model), until its first request takes it
	start time.Time     // the start the current request is measured from
	tm    *timing       // the current request's timing; nil when no response came

	sampled []bool // per operation: this user offered its shard a failed response
}

func (p *phase) newUser(i int) *user {
	return &user{
		p:       p,
		c:       newClient(p.ctx, p.t, p.opts.Timeout, &p.stop),
		shard:   p.rec.shardFor(i),
		vu:      p.script.NewVU(i+1, p.seed+uint64(i)),
		sampled: make([]bool, len(p.script.Ops())),
	}
}

// iterate runs one iteration of the script; a non-zero sched is its
// scheduled start (open model): the iteration's first request is measured
// from it by as much as the iteration began late. An iteration cut short
// by the end of the phase or by a failed connect does not count.
func (u *user) iterate(sched time.Time) {
	u.late = 0
	if !sched.IsZero() {
		u.late = max(time.Since(sched), 0)
	}
	if u.vu.Iterate(u.p.ctx, u, u) == nil {
		u.iterations++
	}
}

// Do sends one request of the iteration through the user's connection.
// An attempt that failed to connect is counted apart, waits out the
// backoff and aborts the iteration; so does the end of the phase.
func (u *user) Do(req *scenario.Request, resp *scenario.Response) error {
	u.start = time.Now().Add(-u.late)
	u.late = 0
	err := u.c.do(req, resp)
	if err == nil {
		u.back.connected()
		u.tm = &u.c.tm
		return nil
	}
	if errors.Is(err, errStopped) {
		return err
	}
	if ce, ok := errors.AsType[*connectError](err); ok {
		u.shard.connectError(ce.kind)
		u.back.wait(u.p.ctx, u.back.failed())
		return fmt.Errorf("%w: %w", scenario.ErrAbort, err)
	}
	u.back.connected()
	u.tm = nil
	return &requestError{class: classify(err), err: err}
}

// Record counts one step's outcome: a request Do sent (with its latency
// when a response came) or a step the scenario skipped, which counts as a
// failed request of its operation without a latency.
func (u *user) Record(o scenario.Outcome) {
	tm := u.tm
	if !o.Sent {
		tm = nil
	}
	u.shard.record(o.Op, tm, u.start, o.Class, u.p.rec.highestUS)
	if o.Class != "" && !u.sampled[o.Op] {
		u.sampled[o.Op] = true // each user offers its shard one sample per operation
		u.shard.sample(o.Op, o.Status, o.Class, o.Body)
	}
}

// requestError is a request that got no whole response; Class is its
// class in Measurement.Errors (see classify).
type requestError struct {
	class string
	err   error
}

func (e *requestError) Error() string { return e.err.Error() }
func (e *requestError) Unwrap() error { return e.err }

// Class is the failure's class, for package scenario.
func (e *requestError) Class() string { return e.class }
