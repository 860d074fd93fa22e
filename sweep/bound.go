package sweep

// Nothing waits forever. Every call the runner makes into the stack's
// platform (start the dependencies, apply a cell, wait until ready, read
// back, take down) is bounded: a platform that accepts a call and never
// answers (a dockerd wedged on a frozen container, an API server gone
// quiet) fails the cell naming the call, the service and the bound,
// instead of hanging an unattended run until morning. The call gets a
// context that ends at the bound; a call that does not return even then
// is left behind, and the cell fails all the same a little later.

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

// ErrCallTimeout marks a call into the platform that did not answer
// within its bound.
var ErrCallTimeout = errors.New("no answer within its bound")

// CallTimeoutError is a call that did not answer within Bound.
type CallTimeoutError struct {
	Call    string // apply, ready, read back, start dependencies, down
	Service string // the target service
	Bound   time.Duration
}

func (e *CallTimeoutError) Error() string {
	return fmt.Sprintf("%s of service %s: no answer within %s (the run's call timeout); the platform may be wedged", e.Call, e.Service, e.Bound)
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

// bounded runs f with a context that ends after bound. When f returns
// because that context ended, or has not returned a grace (a quarter of
// the bound, at most 30 s) after it, the result is a *CallTimeoutError;
// in the second case f is left running. A cancelled ctx (Ctrl-C) is
// returned as f returns it.
func bounded(ctx context.Context, call, service string, bound time.Duration, f func(context.Context) error) error {
	cctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(cctx) }()
	timeout := &CallTimeoutError{Call: call, Service: service, Bound: bound}
	grace := time.NewTimer(bound + min(bound/4, 30*time.Second))
	defer grace.Stop()
	select {
	case err := <-done:
		if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %w", timeout, err)
		}
		return err
	case <-grace.C:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return timeout
	}
}
