// Package session is sweep as a library: what the commands run, resume,
// rerun, check and limit do, without flags and without printing. Open
// resolves a spec into a run (a new run directory, or the resume of the
// run already in it), builds its stacks, load driver and samplers and
// takes the directory's lock; Run runs the grid (or the jobs asked) and
// tears the stacks down; OpenLimit and Limit do the same for one
// configuration's safe-limit search; Close releases what Open took.
//
// What a person should be told along the way reaches the caller as
// values (see Event), the per-cell progress through sweep.Progress, and
// errors keep their causes: the caller decides the words, the exit code
// and where they go. Package cmd/sweep is one such caller.
package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/strategy/repeat"
	"github.com/sweep-tool/sweep/sweep"
)

// Options are what a session needs besides the spec.
type Options struct {
	// K6 is the k6 binary's path; empty: k6 on PATH when the spec's
	// driver allows it.
	K6 string
	// Env is the process environment as the front end read it: the
	// backends' engine (DOCKER_HOST, ...), what compose files
	// interpolate, SWEEP_COMPOSE_CLI; the load tools run in it.
	Env sweep.Env
	// Version is the tool version recorded in sweep.json.
	Version string
	// ForceNew starts a new run where the run directory holds one with a
	// different spec, moving the earlier run aside.
	ForceNew bool
	// RetryFailed runs failed cells of an earlier run again.
	RetryFailed bool
	// AllowLarge lets a grid above MaxJobs cell runs or MaxHours run.
	AllowLarge bool
	// Jobs, when set, are run instead of the spec's schedule (one cell
	// again as a new repetition: see Again).
	Jobs []sweep.Job
	// K6Dashboard has k6 export its web dashboard of each measured phase
	// into the cell's directory (k6.Options.WebDashboard); with the
	// built-in driver, or no k6 to be found, it is bad input.
	K6Dashboard bool
	// Progress is told about each job; Observer each second of every
	// measured phase. Both may be nil.
	Progress sweep.Progress
	Observer sweep.Observer
	// Notify is told what a person should know as it happens (see
	// Event); nil tells nobody.
	Notify func(Event)
	// CheckGenerator, when set, makes each job the generator check
	// (sweep.GeneratorHook): the job's load with the chosen driver, then
	// with the built-in one, the comparison passed here.
	CheckGenerator func(sweep.GeneratorCheck) error
	// Checked is a generator check made before this run (run
	// --check-first); Open writes it into the run directory.
	Checked *sweep.GeneratorCheck
}

// Limits above which a grid needs Options.AllowLarge.
const (
	MaxJobs  = 500
	MaxHours = 48
)

// Session is one open run: its directory (locked), its stacks, load
// driver and samplers. Nothing runs until Run or Limit.
type Session struct {
	spec  sweep.Spec
	opts  Options
	runID string
	dir   string
	meta  results.Meta
	// facts are the stack's facts last read whole (recordFacts)
	facts    *sweep.StackFacts
	driver   sweep.Driver
	builtin  builtin.Options                 // every built-in driver's (builtinOptions), set by pickDriver
	stack    Stack                           // the main stack (the first variant's)
	variants map[string]sweep.Stack          // with variants: each stack by name
	stacks   []Stack                         // with variants: every stack, for teardown
	engine   metrics.Engine                  // the main stack's engine, for the samplers
	cleanup  func(ctx context.Context) error // removes what carries the run's label
	db       *samplers
	lock     *results.Lock
	log      *results.LazyFile
	hostCPUs int
	search   *cellSearch // the spec's per-cell safe-limit search, or nil
	lanes    []*lane     // with Spec.Parallel: the lanes, the first the main stack's
}

// RunID is the run's id (a resumed run keeps its own).
func (s *Session) RunID() string { return s.runID }

// Dir is the run directory.
func (s *Session) Dir() string { return s.dir }

// Spec is the spec the session runs.
func (s *Session) Spec() sweep.Spec { return s.spec }

// Open checks everything it can before starting anything (the spec, the
// grid's size, the load driver, the run directory, the compose files,
// the engine's CPUs, the DSNs' form), then takes the run directory's
// lock and writes sweep.json: a new run, or the resume of the run
// already there when its spec is the same. Errors caused by the spec are
// bad input (sweep.ErrBadInput); nothing is left behind by them.
func Open(ctx context.Context, spec sweep.Spec, opts Options) (_ *Session, err error) {
	s := &Session{spec: spec, opts: opts}
	if err := s.validate(); err != nil {
		return nil, err
	}
	driverVersion := ""
	if s.driver, driverVersion, err = s.pickDriver(ctx); err != nil {
		return nil, err
	}
	if err := s.prepareDir(); err != nil {
		return nil, err
	}
	if err := s.open(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	s.meta.Host.Driver, s.meta.Host.K6Version = s.driver.Name(), driverVersion
	if err := s.meta.Write(s.dir); err != nil {
		return nil, err
	}
	if err := errors.Join(spec.Script.Save(s.dir), spec.Scenario.Save(s.dir)); err != nil {
		return nil, err
	}
	if opts.Checked != nil {
		if err := opts.Checked.Write(s.dir); err != nil {
			return nil, err
		}
	}
	started := Started{RunID: s.runID, Dir: s.dir, Cells: len(spec.Cells()), Repeat: spec.Repeat, Jobs: len(opts.Jobs)}
	if spec.Interleaved() {
		started.Rounds = spec.MaxRounds()
	}
	s.notify(started)
	if len(s.lanes) > 0 {
		s.notify(s.lanesPlaced())
	}
	return s, nil
}

// validate checks the spec, its strategy's plan, its search and the
// grid's size.
func (s *Session) validate() error {
	if err := s.spec.Validate(); err != nil {
		return err
	}
	if err := halving.CheckSpec(s.spec); err != nil {
		return err
	}
	var err error
	if s.search, err = newCellSearch(s.spec); err != nil {
		return err
	}
	est := s.spec.Estimate()
	if hours := est.Total.Hours(); !s.opts.AllowLarge && (est.Jobs > MaxJobs || hours > MaxHours) {
		return sweep.BadInput("allow_large", "the grid has %d cell runs (≈%.0f h); narrow it or pass {allow_large}", est.Jobs, hours)
	}
	return nil
}

// open builds the stacks, checks the CPU limits against the engine,
// checks the database settings (a DSN of this host must be served by the
// stack or by what runs now), then creates the directory and takes its
// lock; nothing is started yet. On an error it releases what it took.
func (s *Session) open(ctx context.Context) (err error) {
	s.log = results.NewLazyFile(filepath.Join(s.dir, results.LogFile))
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Close())
		}
	}()
	// a platform that does not answer costs the call timeout, not the run
	open := &sweep.CallTimeoutError{Call: "open the stack", Service: s.spec.Service, Bound: s.spec.CallLimit()}
	if err := sweep.Bounded(ctx, open, s.openStacks); err != nil {
		return err
	}
	if s.db == nil {
		if s.db, err = s.samplers(); err != nil {
			return err
		}
	}
	if ks, ok := s.stack.(*kube.Stack); ok {
		s.db.forward = kubeForward(ks)
	}
	if err := s.checkDSNPorts(ctx); err != nil {
		return err
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return sweep.BadInput("out", "cannot create %s: %v", s.dir, err)
	}
	return s.takeLock()
}

// openStacks builds the stacks (or the lanes) and checks the CPU limits
// against their platform.
func (s *Session) openStacks(ctx context.Context) (err error) {
	if s.spec.Parallel > 0 {
		if err := s.buildLanes(ctx); err != nil {
			return err
		}
	} else {
		if err := s.buildStacks(ctx); err != nil {
			return err
		}
		if err := s.placeLoad(); err != nil {
			return err
		}
	}
	s.hostCPUs, err = s.checkCPUs(ctx)
	return err
}

// Close releases the lock, the database connections and the log file.
// Its error joins what could not be released; the run's records are
// written by then, so it is the caller's to report, not to fail the run
// on.
func (s *Session) Close() error {
	var errs []error
	if s.lock != nil {
		errs = append(errs, s.lock.Release())
		s.lock = nil
	}
	for _, l := range s.lanes {
		errs = append(errs, l.db.close())
	}
	if s.db != nil && len(s.lanes) == 0 {
		errs = append(errs, s.db.close())
	}
	if s.log != nil {
		errs = append(errs, s.log.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close run %s: %w", s.runID, err)
	}
	return nil
}

// Result is what Run did.
type Result struct {
	sweep.Summary
	// FactsErr is sweep.json's write error when the engine, compose and
	// image facts were recorded after the run.
	FactsErr error
}

// Run runs the grid (or Options.Jobs), records the facts of what ran in
// sweep.json and tears every stack down (unless the spec keeps it up).
// Its error is the runner's (see sweep.Runner.Run), with the summary so
// far.
func (s *Session) Run(ctx context.Context) (Result, error) {
	runner := s.runner()
	runner.Jobs, runner.RetryFailed, runner.Progress = s.opts.Jobs, s.opts.RetryFailed, s.opts.Progress
	// Once the services the target needs are up, before the first cell:
	// check the DSNs against what now runs, and record the facts (images,
	// versions), so a run that crashes keeps them too.
	runner.Prepare = func(ctx context.Context) error {
		return errors.Join(s.db.prepare(ctx), s.recordFacts(ctx))
	}
	if s.spec.Interleaved() {
		runner.EnoughRounds = s.picksApart
		runner.TargetsUp = s.recordFacts // Prepare's ran before any target did
	}
	if s.search != nil {
		runner.Measure = s.search.hook(runner, s.runID, s.log)
	}
	if s.opts.CheckGenerator != nil {
		runner.Measure = sweep.GeneratorHook(runner, builtin.New(s.builtin), s.opts.CheckGenerator)
	}
	var sum sweep.Summary
	var err error
	if len(s.lanes) > 0 {
		sum, err = s.runLanes(ctx)
	} else {
		sum, err = s.measure(ctx, runner)
	}
	res := Result{Summary: sum, FactsErr: s.recordFacts(ctx)}
	s.release(ctx, err)
	return res, err
}

// picksApart is the rule of an interleaved run's automatic rounds: a
// group's rounds stop once the report's picks at its CPU limit (of its
// slice) are apart from every other cell there, as read from the run
// directory so far.
func (s *Session) picksApart(g sweep.TargetGroup) bool {
	run, err := results.LoadRun(s.dir)
	if err != nil {
		return false
	}
	return report.PicksApart(run.Only(g.Slice), g.CPUs, report.DefaultOptions())
}

// measure runs the spec's strategy: the grid (or the jobs asked) through
// the runner, or successive halving's rounds (strategy/halving) with its
// default plan for the spec's warm-up and duration; then, with automatic
// repetitions, the rounds of repeats of the picks and their sets
// (strategy/repeat).
func (s *Session) measure(ctx context.Context, runner *sweep.Runner) (sweep.Summary, error) {
	if runner.Jobs != nil {
		return runner.Run(ctx)
	}
	var sum sweep.Summary
	var err error
	opts := repeat.Options{Max: s.spec.MaxRepeat, Report: report.DefaultOptions()}
	if s.spec.HalvingRounds() { // the rungs are the interleaved rounds' (sweep/rungs.go)
		runner.Cut = halving.CutRounds(s.dir, report.DefaultOptions())
		return runner.Run(ctx)
	}
	if s.spec.Strategy == sweep.StrategyHalving {
		plan := halving.DefaultPlan(s.spec.Warmup.Std(), s.spec.Duration.Std())
		sum, err = halving.Run(ctx, runner, plan, report.DefaultOptions())
		opts.Fidelity = halving.FinalFidelity(s.spec, plan) // repeats measure as the finals did
	} else {
		sum, err = runner.Run(ctx)
	}
	if err != nil || !s.spec.RepeatAuto {
		return sum, err
	}
	_, recs, err := repeat.Run(ctx, runner, opts)
	sum.Records = append(sum.Records, recs...)
	return sum, err
}

// runner is the one place a Runner is built: the spec, the run, the
// stacks, the driver and the samplers of this session.
func (s *Session) runner() *sweep.Runner {
	return &sweep.Runner{Spec: s.spec, RunID: s.runID, Dir: s.dir, Stack: s.stack, Variants: s.variants,
		Driver: s.driver, Log: s.log, HostCPUs: s.hostCPUs, Observer: s.opts.Observer,
		Prepare: s.db.prepare, Reset: s.db.resetFunc(), Monitor: s.db.monitor(s.engine, s.allStacks(), s.spec),
		TargetMonitor: s.db.targetMonitor(s.engine, s.allStacks(), s.spec),
		Limits:        s.db.limitsFunc(), Replicas: replicas(s.stack)}
}

// replicas is the target's replica count where the stack knows it (a
// compose stack's files), else 1.
func replicas(st any) int {
	if r, ok := st.(interface{ Replicas() int }); ok {
		return r.Replicas()
	}
	return 1
}

// Cleanup removes, best effort and at once, every container labelled
// with the run's id: what a second Ctrl-C asks for. The error is what
// could not be removed (sweep clean can try again later).
func (s *Session) Cleanup(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return s.cleanup(cctx)
}

func (s *Session) notify(e Event) {
	if s.opts.Notify != nil {
		s.opts.Notify(e)
	}
}

// logf writes one line to sweep.log.
func (s *Session) logf(format string, args ...any) {
	fmt.Fprintf(s.log, format+"\n", args...)
}
