package sweep

// Nothing waits forever. Every call the runner makes out of the process
// (start the dependencies, apply a cell, wait until ready, read back,
// check the DSNs, read the connection limits, probe the URL, reset the
// database, watch the stack, start the samplers, run a load phase, read
// the target's log, take a variant down) is bounded: a platform that
// accepts a call and never answers (a dockerd wedged on a frozen
// container, an API server gone quiet, a database that holds a lock)
// fails the cell naming the call, the service and the bound, instead of
// hanging an unattended run until morning. The call gets a context that
// ends at the bound; a call that does not return even then is left
// behind, and the cell fails all the same a little later.

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultCallTimeout bounds one call into the stack's platform when the
// spec gives none (Spec.CallTimeout 0): long enough for a compose up that
// pulls or builds, short enough that a wedged engine costs one cell, not
// the night.
const DefaultCallTimeout = 10 * time.Minute

// DownTimeout bounds taking a stack down (a variant's before the next
// one's cells, every stack at the end of a run), also after Ctrl-C.
const DownTimeout = 2 * time.Minute

// CleanTimeout bounds sweep clean when it is given no bound: every run's
// removal on the engine, or on the cluster, together.
const CleanTimeout = 5 * time.Minute

// ErrCallTimeout marks a call into the platform that did not answer
// within its bound.
var ErrCallTimeout = errors.New("no answer within its bound")

// What a call's bound is made of, as a CallTimeoutError says it.
const (
	OfCallTimeout  = "the run's call timeout"
	OfReadyTimeout = "the ready timeout and the run's call timeout"
	OfPhase        = "the phase's length and the run's call timeout"
	OfDownTimeout  = "the bound of taking a stack down"
	OfTargetLog    = "the bound of reading a failed cell's log"
	OfClean        = "the clean's bound, {timeout}"
)

// CallTimeoutError is a call that did not answer within Bound.
type CallTimeoutError struct {
	Call    string // apply, ready wait, read back, start dependencies, down, load, ...
	Service string // the target service; empty for a call of no one service (sweep clean)
	Bound   time.Duration
	// Of says what Bound is made of (OfCallTimeout, ...); empty:
	// OfCallTimeout.
	Of string
}

func (e *CallTimeoutError) Error() string {
	of := e.Of
	if of == "" {
		of = OfCallTimeout
	}
	call := e.Call
	if e.Service != "" {
		call += " of service " + e.Service
	}
	return fmt.Sprintf("%s: no answer within %s (%s); the platform may be wedged", call, e.Bound, of)
}

// Unwrap makes the error match ErrCallTimeout.
func (e *CallTimeoutError) Unwrap() error { return ErrCallTimeout }

// CallLimit is the bound of one call into the platform.
func (s Spec) CallLimit() time.Duration {
	if s.CallTimeout > 0 {
		return s.CallTimeout.Std()
	}
	return DefaultCallTimeout
}

// DownCall is the call that takes service's stack down, with its bound.
func DownCall(service string) *CallTimeoutError {
	return &CallTimeoutError{Call: "down", Service: service, Bound: DownTimeout, Of: OfDownTimeout}
}

// call is the bound of the runner's call name: the spec's call timeout,
// plus extra (a ready timeout, a phase's length) as of says.
func (r *Runner) call(name string, extra time.Duration, of string) *CallTimeoutError {
	return &CallTimeoutError{Call: name, Service: r.Spec.Service, Bound: extra + r.Spec.CallLimit(), Of: of}
}

// Bounded runs f with a context that ends at c's bound. When f returns
// because that context ended, or has not returned a grace (a quarter of
// the bound, at most 30 s) after it, the result is c (wrapping f's error
// in the first case); in the second case f is left running. A cancelled
// ctx (Ctrl-C) is returned as f returns it.
func Bounded(ctx context.Context, c *CallTimeoutError, f func(context.Context) error) error {
	_, err := BoundedGet(ctx, c, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}

// BoundedGet is Bounded for a call with a result: the result is f's
// when f returned, the zero value when it was left running.
func BoundedGet[T any](ctx context.Context, c *CallTimeoutError, f func(context.Context) (T, error)) (T, error) {
	cctx, cancel := context.WithTimeout(ctx, c.Bound)
	defer cancel()
	return await(ctx, cctx, c, f)
}

// boundedStart is Bounded for a call that starts something living on in
// the context it is given once it returned (a watch of the stack, the
// samplers): that context ends at the bound only when f has not
// returned by then; else it ends when ctx does or the returned stop is
// called, which the caller does once what f started is stopped.
func boundedStart(ctx context.Context, c *CallTimeoutError, f func(context.Context) error) (stop func(), err error) {
	cctx, cancel := context.WithCancelCause(ctx)
	late := time.AfterFunc(c.Bound, func() { cancel(context.DeadlineExceeded) })
	stop = func() { late.Stop(); cancel(context.Canceled) }
	_, err = await(ctx, cctx, c, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	if err == nil && !late.Stop() && ctx.Err() == nil {
		err = c // f returned as its bound ended what it started
	}
	return stop, err
}

// await runs f on cctx, which ends at c's bound, and waits for it as
// Bounded says.
func await[T any](ctx, cctx context.Context, c *CallTimeoutError, f func(context.Context) (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(cctx)
		done <- result{v, err}
	}()
	grace := time.NewTimer(c.Bound + min(c.Bound/4, 30*time.Second))
	defer grace.Stop()
	var zero T
	select {
	case res := <-done:
		if res.err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), context.DeadlineExceeded) {
			return res.v, fmt.Errorf("%w: %w", c, res.err)
		}
		return res.v, res.err
	case <-grace.C:
		if ctx.Err() != nil {
			return zero, ctx.Err()
		}
		return zero, c
	}
}
