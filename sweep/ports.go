package sweep

import (
	"context"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// Driver generates load against the target for one phase (warm-up or
// measured) and reports what it saw. The built-in Go driver and the k6
// driver both implement it.
type Driver interface {
	// Name is "builtin" or "k6"; it is recorded in every cell.
	Name() string
	// Run drives load until req.Duration has passed, req.Stop is closed
	// or ctx is cancelled. A cancelled ctx returns ctx.Err() (possibly
	// wrapped); a closed Stop is a normal end.
	Run(ctx context.Context, req LoadRequest) (results.Measurement, error)
}

// LoadChecker is a Driver that can tell before anything starts whether
// it can run a load as asked (the k6 driver: whether the user's script
// loads and its options let sweep's load run).
type LoadChecker interface {
	// CheckLoad returns an error when req's load cannot run as asked,
	// and a notice (or "") saying what the driver overrides to run it.
	CheckLoad(ctx context.Context, req LoadRequest) (notice string, err error)
}

// LoadRequest is one phase of load for one cell.
type LoadRequest struct {
	// BaseURL is the target's base URL; requests go to
	// BaseURL/<ResourceType> and BaseURL/<ResourceType>/<id>.
	BaseURL string
	// Load is the resolved load model for this cell (VUs already computed
	// for vus-per-web).
	Load results.LoadInfo
	// Duration of the phase.
	Duration time.Duration
	// Warmup is true for the discarded warm-up phase.
	Warmup bool
	// Dir is the cell repetition's directory; a driver may write its raw
	// output there (driver-summary.json).
	Dir string
	// Interval, when set, is called about once a second during the phase
	// with the figures of the second that just ended (for samples.csv).
	Interval func(results.Interval)
	// Stop, when set, ends the phase early once closed (the steady-state
	// rule has measured enough). It is a normal end, unlike a cancelled
	// context: the driver returns what it measured up to then, with
	// DurationS the phase's real length and every rate over that length,
	// and no error.
	Stop <-chan struct{}
}

// TargetConfig is what one cell asks of the target service.
type TargetConfig struct {
	// Dir is the cell repetition's directory; override.yaml is written
	// there.
	Dir string
	// CPUs is the CPU limit of the target.
	CPUs float64
	// Memory is the target's memory limit (256m, 1g); empty: none.
	Memory string
	// ServiceEnv sets variables on other services of the stack (axes
	// given as SERVICE:NAME); those services are recreated with the target.
	ServiceEnv map[string]map[string]string
	// CPUSet pins the target to these host CPUs ("1", "2-3"); empty: none.
	CPUSet string
	// Env holds the variables set on the target (the swept ones and the
	// instance name).
	Env map[string]string
	// Labels are put on the target container (sweep.cell).
	Labels map[string]string
}

// Stack is the running system under test, as the runner needs it.
type Stack interface {
	// StartDeps brings up, with cfg's override, the services the target
	// does not come before, and waits until those with a healthcheck are
	// healthy and the others running. The runner calls it once before the
	// first Apply of each start of the stack.
	StartDeps(ctx context.Context, cfg TargetConfig, timeout time.Duration) error
	// Apply writes the override for cfg and (re)creates the target with it;
	// the first call brings up the rest of the stack too.
	Apply(ctx context.Context, cfg TargetConfig) error
	// WaitReady blocks until the target is healthy (its Docker healthcheck,
	// or HTTP 200 on the ready path) or the timeout passes.
	WaitReady(ctx context.Context, timeout time.Duration) error
	// ReadBack returns the target's configuration as the engine reports it.
	ReadBack(ctx context.Context) (results.Applied, error)
	// Logs returns the last n lines of the target's log.
	Logs(ctx context.Context, n int) (string, error)
	// Watch starts watching every container of the running stack (see
	// StackWatch); the runner watches each cell's warm-up and measured
	// phase.
	Watch(ctx context.Context) (StackWatch, error)
	// Down stops and removes everything the stack started.
	Down(ctx context.Context) error
}

// Targets is the seam of the interleaved schedule (Spec.Schedule): a
// backend whose Stack implements it runs several targets of one CPU limit
// at once beside its running stack. A backend that does not cannot run
// the schedule (Runner.Run says so as bad input of schedule).
type Targets interface {
	// StartTargets starts one target per cfg once the stack's other
	// services are up (after StartDeps): each a container (or Deployment)
	// of its own with cfg's env, CPU limit and memory, the run's labels
	// and cfg.Labels (sweep.cell), its own published port, sharing the
	// stack's other services. It returns once every one was created, in
	// cfgs' order, without waiting for them (Target.WaitReady); on an
	// error it removes what it started. cfg.Dir is the group's folder for
	// what the backend writes (an override).
	StartTargets(ctx context.Context, cfgs []TargetConfig) ([]Target, error)
}

// Target is one target an interleaved group runs (Targets.StartTargets).
type Target interface {
	// URL is the base URL the load reaches this target at.
	URL() string
	// WaitReady, ReadBack and Logs are Stack's, for this target.
	WaitReady(ctx context.Context, timeout time.Duration) error
	ReadBack(ctx context.Context) (results.Applied, error)
	Logs(ctx context.Context, n int) (string, error)
	// Watch watches this target and the stack's shared services for
	// one slice: a restart of another target is no change of this one's
	// stack.
	Watch(ctx context.Context) (StackWatch, error)
	// Down stops and removes this target.
	Down(ctx context.Context) error
}

// StackWatch watches the containers of a running stack: a cell is ok only
// when the stack it measured stayed the same from the start of its
// warm-up to the end of its measured phase. A restart, exit or OOM kill of
// the target mixes two processes in one figure; a pause of any service, or
// a restart or exit of another one (the database, a pooler), means the
// load met a different stack for part of the phase. Either way the figures
// no longer describe one stack, so the cell fails.
type StackWatch interface {
	// Changed is closed when the first change is seen, so the load can
	// stop early.
	Changed() <-chan struct{}
	// Stop ends the watch and returns every change seen, in order. An
	// error means the watch could not see everything (its event stream
	// broke); the stack may then have changed unseen.
	Stop(ctx context.Context) ([]results.StackEvent, error)
}

// Monitor watches the stack while a cell's measured load runs (container
// resources, database sessions) and adds what it saw to the record.
type Monitor interface {
	// Start begins watching before the measured phase of a cell.
	Start(ctx context.Context, cell Cell, dir string) error
	// Stop ends watching, fills rec's metric blocks and writes the cell's
	// per-second series (samples.csv) into dir with the driver's intervals.
	Stop(ctx context.Context, rec *results.Record, dir string, intervals []results.Interval) error
}

// Progress is told what the runner is doing, for a progress bar or log
// lines. Implementations must be cheap; they are called on the runner's
// goroutine.
type Progress interface {
	// Begin is called once with the number of jobs and how many of them an
	// earlier run already finished.
	Begin(total, done int)
	// Phase is called when a job enters a phase (apply, ready, warmup, …).
	Phase(job Job, phase string)
	// Done is called when a job has its record.
	Done(job Job, rec results.Record)
}
