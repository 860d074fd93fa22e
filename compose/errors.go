package compose

import "errors"

// ErrNoComposeCLI means neither the `docker compose` plugin (v2) nor the
// `docker-compose` binary (v1) could be found.
var ErrNoComposeCLI = errors.New("no docker compose CLI")

// ErrTargetExited is returned by WaitReady when the target container
// stopped (exited, dead, or unhealthy and exited) instead of becoming
// ready; the message carries its state and exit code.
var ErrTargetExited = errors.New("target container exited")

// ErrDependencyExited is returned by StartDeps when a service the target
// needs exited with an error (or died) instead of becoming ready.
var ErrDependencyExited = errors.New("dependency exited")

// ErrNoContainer means no container of the target service exists in the
// stack's project (Apply has not run, or compose removed it).
var ErrNoContainer = errors.New("no target container")

// ErrBadEnv is returned when an env value cannot be written to a compose
// file (it contains a newline or NUL byte).
var ErrBadEnv = errors.New("env value not representable in compose")
