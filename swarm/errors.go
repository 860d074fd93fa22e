package swarm

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by every UnsupportedError: a compose file
// asks for something a swarm service cannot do.
var ErrUnsupported = errors.New("no swarm equivalent")

// UnsupportedError names the service and the compose field that has no
// swarm equivalent, so the user knows what to change. It wraps
// sweep.ErrBadInput through ErrUnsupported's caller (New).
type UnsupportedError struct {
	Service string
	// Field is the compose key, as written in the file (tmpfs, build,
	// deploy.mode, ports[0].published).
	Field string
	// Why says what the swarm lacks or what to write instead.
	Why string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("service %s: %s: %s", e.Service, e.Field, e.Why)
}

func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// ErrNotSwarm means the engine the client points at is not a manager of
// an active swarm.
var ErrNotSwarm = errors.New("not a swarm manager")

// ErrTaskFailed means a task of the stack ended (failed, rejected,
// shut down) instead of running; the message carries its state and the
// engine's error.
var ErrTaskFailed = errors.New("task did not run")

// ErrNoTask means the target service has no running task (Apply has not
// run, or the task ended).
var ErrNoTask = errors.New("no running task of the target")
