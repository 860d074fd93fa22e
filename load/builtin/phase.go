package builtin

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// phase is one Run: its users, their recorder and the way it ends.
type phase struct {
	parent context.Context
	opts   Options
	req    sweep.LoadRequest
	t      *target
	script *scenario.Script
	seed   uint64 // the users' random draws: user i's seed is seed + i

	ctx   context.Context // ends with the phase
	stop  stopper
	rec   *recorder
	start time.Time
	// stopTicks ends the per-second reports; run calls it with the
	// phase's end once the users are stopped.
	stopTicks func(end time.Time)

	wg         sync.WaitGroup // the users
	mu         sync.Mutex     // guards iterations and sent
	iterations int64
	sent       int64 // bytes the users wrote to the network
	dropped    int64 // written by the dispatcher only
}

// newPhase prepares a Run with opts as New filled them in (a Script).
func newPhase(ctx context.Context, opts Options, req sweep.LoadRequest, t *target) *phase {
	p := &phase{parent: ctx, opts: opts, req: req, t: t, script: opts.Script, seed: opts.Seed}
	if p.seed == 0 {
		p.seed = rand.Uint64()
	}
	users := req.Load.VUs
	if req.Load.Model == "open" {
		users = max(req.Load.MaxVUs, req.Load.VUs)
	}
	highest := max(2*opts.Timeout, time.Minute)
	p.rec = newRecorder(users, p.script.Ops(), highest, req.Interval != nil)
	return p
}

// run drives the phase to its end and returns what it measured.
func (p *phase) run() results.Measurement {
	ctx, cancel := context.WithCancel(p.parent)
	defer cancel()
	p.ctx = ctx
	defer context.AfterFunc(ctx, p.stop.stop)()
	// A closed req.Stop ends the phase as its duration would: it cancels
	// the phase's own context, never the caller's, so Run reports no error.
	go func() {
		select {
		case <-p.req.Stop:
			cancel()
		case <-ctx.Done():
		}
	}()

	p.stopTicks = func(time.Time) {}
	var end time.Time
	if p.req.Load.Model == "open" {
		end = p.runOpen()
	} else {
		end = p.runClosed()
	}
	// Stop the users before the last report, so the reports hold every
	// request the measurement counts but the ones still in flight (at
	// most one a user).
	p.stop.stop()
	p.stopTicks(end)
	cancel()
	p.wg.Wait()
	m := p.rec.measurement(end.Sub(p.start), p.iterations, p.dropped)
	m.BytesSent = p.sent
	return m
}

// runClosed starts the users and waits for the phase's end, returning it.
func (p *phase) runClosed() time.Time {
	p.start = time.Now()
	p.stopTicks = p.tick()
	for i := range p.req.Load.VUs {
		u := p.newUser(i)
		p.wg.Go(func() {
			defer p.done(u)
			for !p.stop.stopped.Load() {
				u.iterate(time.Time{})
			}
		})
	}
	return p.wait()
}

// wait blocks until the duration has passed, the parent is cancelled or
// req.Stop is closed.
func (p *phase) wait() time.Time {
	timer := time.NewTimer(time.Until(p.start.Add(p.req.Duration)))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-p.ctx.Done():
	}
	return time.Now()
}

// done adds a user's finished iterations and bytes sent to the phase's.
func (p *phase) done(u *user) {
	p.mu.Lock()
	p.iterations += u.iterations
	p.sent += u.c.sent
	p.mu.Unlock()
}

// tick calls req.Interval once a second until the returned function is
// called; that function returns once no call is under way.
func (p *phase) tick() (stop func(end time.Time)) {
	if p.req.Interval == nil {
		return func(time.Time) {}
	}
	s := newSampler(p.rec)
	quit, finished := make(chan struct{}), make(chan struct{})
	var last float64
	at := func(t time.Time) float64 { return math.Round(t.Sub(p.start).Seconds()*1000) / 1000 }
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				last = at(now)
				p.req.Interval(s.take(last))
			case <-quit:
				return
			}
		}
	}()
	// The phase's end races the last whole second's tick: the part after
	// the last tick is reported too, so every measured second has a row.
	return func(end time.Time) {
		close(quit)
		<-finished
		if secs := at(end); secs-last >= 0.1 {
			p.req.Interval(s.take(secs))
		}
	}
}

// runOpen dispatches iterations at the constant rate: each goes to an idle
// user, to a new one while fewer than MaxVUs exist, or is dropped.
func (p *phase) runOpen() (end time.Time) {
	l := p.req.Load
	work := make(chan time.Time)
	var ready sync.WaitGroup
	for i := range l.VUs {
		ready.Add(1)
		p.goOpen(p.newUser(i), time.Time{}, work, ready.Done)
	}
	ready.Wait() // so the first iterations find their users waiting
	users, maxUsers := l.VUs, max(l.MaxVUs, l.VUs)
	p.start = time.Now()
	p.stopTicks = p.tick()
	deadline := p.start.Add(p.req.Duration)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for k := int64(0); ; k++ {
		at := p.start.Add(time.Duration(float64(k) * float64(time.Second) / l.Rate))
		if !at.Before(deadline) {
			return p.wait()
		}
		if !p.sleepUntil(timer, at) {
			return time.Now()
		}
		select {
		case work <- at:
		default:
			if users < maxUsers {
				p.goOpen(p.newUser(users), at, work, nil)
				users++
			} else {
				p.dropped++
			}
		}
	}
}

// sleepUntil waits for at; false means the phase ended first.
func (p *phase) sleepUntil(timer *time.Timer, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return p.ctx.Err() == nil
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// goOpen starts an open-model user; a non-zero first is its first
// iteration's scheduled start. ready, if set, is called once it waits.
func (p *phase) goOpen(u *user, first time.Time, work <-chan time.Time, ready func()) {
	p.wg.Go(func() {
		defer p.done(u)
		at := first
		for {
			if !at.IsZero() {
				u.iterate(at)
			}
			if ready != nil {
				ready()
				ready = nil
			}
			select {
			case at = <-work:
			case <-p.ctx.Done():
				return
			}
		}
	})
}
