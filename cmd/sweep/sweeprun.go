package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/results/report"
	"github.com/sweep-tool/sweep/sweep"
)

// Limits above which a grid needs --yes.
const (
	maxCellsWithoutYes = 500
	maxHoursWithoutYes = 48
	teardownTimeout    = 2 * time.Minute
)

// runEnv carries what one invocation of run needs besides the spec.
type runEnv struct {
	stdout, stderr io.Writer
	k6Path         string
	opts           runOpts
	runID          string
	dir            string // the run directory, once open has it
	log            io.Writer
	hostCPUs       int
	service        string
	jobs           []sweep.Job            // rerun: these jobs instead of the spec's schedule
	check          bool                   // preflight: no report at the end
	variants       map[string]sweep.Stack // --variant stacks by name
	stacks         []*compose.Stack       // every variant stack, for teardown
	findLimit      *cellSearch            // --find-limit: each cell searches its safe limit
}

// sweep validates everything it can before starting anything, then runs
// the grid, tears the stack down and prints the summary.
func (e *runEnv) sweep(ctx context.Context, spec sweep.Spec) error {
	if err := e.validate(spec); err != nil {
		return err
	}
	driver, driverVersion, err := e.driver(ctx, spec)
	if err != nil {
		return err
	}
	dir, meta, err := e.prepareDir(spec)
	if err != nil {
		return err
	}
	ses, err := e.open(ctx, spec, dir)
	if err != nil {
		return err
	}
	defer ses.close()
	meta.Host.Driver, meta.Host.K6Version = driver.Name(), driverVersion
	if err := results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta); err != nil {
		return err
	}
	if err := spec.Script.Save(dir); err != nil {
		return err
	}
	if e.jobs != nil {
		fmt.Fprintf(e.stderr, "sweep: run %s: %d job(s) → %s\n", e.runID, len(e.jobs), dir)
	} else {
		fmt.Fprintf(e.stderr, "sweep: run %s: %d cells × %d repetitions → %s\n", e.runID, len(spec.Cells()), spec.Repeat, dir)
	}
	return e.execute(ctx, spec, dir, meta, ses.stack, driver, ses.extras)
}

// session is what a command holds while it loads the stack: the stack,
// the database extras, the directory's lock and its log file.
type session struct {
	stack  *compose.Stack
	extras *dbExtras
	lock   *results.Lock
	logf   *appendFile
}

// open builds the stack, checks the CPU limits against the engine, opens
// the database extras, then creates dir and takes its lock; nothing is
// started yet. On an error it releases what it took.
func (e *runEnv) open(ctx context.Context, spec sweep.Spec, dir string) (_ *session, err error) {
	s := &session{logf: &appendFile{path: filepath.Join(dir, results.LogFile)}}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	e.log = s.logf // sweep.log only: stderr carries the progress lines
	e.dir = dir
	if s.stack, err = e.stack(ctx, spec); err != nil {
		return nil, err
	}
	if e.hostCPUs, err = e.checkCPUs(ctx, s.stack, spec); err != nil {
		return nil, err
	}
	if s.extras, err = e.database(spec); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, sweep.BadInput("out", "cannot create %s: %v", dir, err)
	}
	if s.lock, err = e.lock(dir); err != nil {
		return nil, err
	}
	e.service = spec.Service
	return s, nil
}

// close releases the lock, the database connection and the log file.
func (s *session) close() {
	if s.lock != nil {
		s.lock.Release()
	}
	if s.extras != nil {
		s.extras.close()
	}
	_ = s.logf.Close()
}

// execute runs the grid and always tears down what it started.
func (e *runEnv) execute(ctx context.Context, spec sweep.Spec, dir string, meta results.Meta,
	stack *compose.Stack, driver sweep.Driver, extras *dbExtras) error {
	defer e.guard(stack)()
	runner := &sweep.Runner{Spec: spec, RunID: e.runID, Dir: dir, Stack: stack, Variants: e.variants, Jobs: e.jobs, Driver: driver,
		Log: e.log, HostCPUs: e.hostCPUs, RetryFailed: e.opts.retryFailed, Progress: newProgress(e.stderr),
		Reset: extras.resetFunc(), Monitor: extras.monitor(e.allStacks(stack), spec)}
	// Once the services the target needs are up, before the first cell:
	// check the DSNs against what now runs, and record the facts (images,
	// versions), so a run that crashes keeps them too.
	runner.Prepare = func(ctx context.Context) error {
		return errors.Join(extras.prepare(ctx), e.recordFacts(ctx, stack, dir, meta))
	}
	rf := reportFlags{metrics: []string{"rps", "p99"}, opts: report.DefaultOptions(), skip: e.check}
	if e.findLimit != nil {
		runner.Measure = e.findLimit.hook(runner, e.runID, e.log)
		rf.metrics = append(rf.metrics, string(report.MetricLimit))
	}
	sum, runErr := runner.Run(ctx)
	factsErr := e.recordFacts(ctx, stack, dir, meta)
	e.release(ctx, spec, stack, runErr)
	if errors.Is(runErr, sweep.ErrBadInput) && len(sum.Records) == 0 {
		return runErr // nothing was recorded, so there is nothing to report
	}
	reportErr := e.summarize(dir, sum, rf)
	if reportErr != nil && !isLost(reportErr) {
		fmt.Fprintf(e.stderr, "sweep: report: %v\n", reportErr)
		reportErr = nil
	}
	err := outcome(sum, runErr)
	if isLost(err) {
		return err // the later writes failed for the same reason
	}
	return errors.Join(err, factsErr, reportErr)
}

// isLost reports whether err means a run file could not be written or
// read back: the run's records are not safe, which is exit 1.
func isLost(err error) bool {
	var we *results.WriteError
	return errors.As(err, &we) || errors.Is(err, results.ErrBadRecord)
}

// outcome maps the runner's result to the command's error.
func outcome(sum sweep.Summary, runErr error) error {
	switch {
	case errors.Is(runErr, sweep.ErrInterrupted):
		return fmt.Errorf("%w: the current cell is marked interrupted; run the same command again to resume", runErr)
	case isLost(runErr):
		return fmt.Errorf("%w; the run stopped so that no measurement is lost: make the run directory writable "+
			"(free space, permissions) and run the same command again to resume", runErr)
	case runErr != nil:
		return runErr
	case sum.Failed() > 0:
		return fmt.Errorf("%w: %d of %d cells failed (see their target.log)", errFailedCells, sum.Failed(), len(sum.Records))
	}
	return nil
}

// guard makes a second Ctrl-C remove the run's containers by label; the
// returned function withdraws that.
func (e *runEnv) guard(stack *compose.Stack) func() {
	cleanup := func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = compose.Cleanup(cctx, stack.Engine(), e.runID)
	}
	onHardExit.Store(&cleanup)
	return func() { onHardExit.Store(nil) }
}

// release tears down every stack of the run, or says how to remove them
// later with --keep. After bad input (a DSN or the URL, found on the
// stack's first start) nothing stays up, --keep or not.
func (e *runEnv) release(ctx context.Context, spec sweep.Spec, stack *compose.Stack, runErr error) {
	if spec.Keep && !errors.Is(runErr, sweep.ErrBadInput) {
		fmt.Fprintf(e.stderr, "sweep: --keep: the stack stays up as compose project %s; `sweep clean --run %s` removes it\n",
			stack.Project(), e.runID)
		return
	}
	e.teardown(ctx, stack)
	for _, st := range e.stacks[min(1, len(e.stacks)):] {
		e.teardown(ctx, st)
	}
}

func (e *runEnv) teardown(ctx context.Context, stack *compose.Stack) {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()
	if err := stack.Down(tctx); err != nil {
		fmt.Fprintf(e.stderr, "sweep: tear down: %v; `sweep clean --run %s` removes what is left\n", err, e.runID)
	}
}

// recordFacts adds the engine, compose and image facts to sweep.json once
// the images have run; its error is sweep.json's write error.
func (e *runEnv) recordFacts(ctx context.Context, stack *compose.Stack, dir string, meta results.Meta) error {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	facts, err := stack.Info(fctx)
	if err != nil {
		fmt.Fprintf(e.log, "facts: %v\n", err)
	}
	meta.Host.CPUModel, meta.Host.CPUCount = facts.CPUModel, facts.EngineNCPU
	meta.Host.DockerVersion, meta.Host.ComposeVersion = facts.DockerVersion, facts.ComposeVersion
	meta.Images, meta.ComposeConfigHash = facts.Images, facts.ConfigSHA256
	return results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta)
}

func (e *runEnv) validate(spec sweep.Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	var err error
	if e.findLimit, err = newCellSearch(spec); err != nil {
		return err
	}
	est := spec.Estimate()
	if hours := est.Total.Hours(); !e.opts.yes && (est.Jobs > maxCellsWithoutYes || hours > maxHoursWithoutYes) {
		return sweep.BadInput("yes", "the grid has %d cell runs (≈%.0f h); narrow it or pass --yes", est.Jobs, hours)
	}
	return nil
}

// stack builds the compose stack, validating files, service, engine and
// the services the axes name. With --variant it builds one stack per
// variant too and returns the first as the main one.
func (e *runEnv) stack(ctx context.Context, spec sweep.Spec) (*compose.Stack, error) {
	if len(spec.Variants) == 0 {
		if len(spec.Compose) == 0 {
			return nil, sweep.BadInput("compose", "no compose file; give --compose FILE (repeatable)")
		}
		return e.newStack(ctx, spec, "compose", spec.Compose)
	}
	e.variants = map[string]sweep.Stack{}
	var first *compose.Stack
	for _, v := range spec.Variants {
		st, err := e.newStack(ctx, spec, "variant", v.Files)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = st
		}
		e.variants[v.Name] = st
		e.stacks = append(e.stacks, st)
	}
	return first, nil
}

// allStacks is every stack of the run: the variants', or the one.
func (e *runEnv) allStacks(main *compose.Stack) []*compose.Stack {
	if len(e.stacks) > 0 {
		return e.stacks
	}
	return []*compose.Stack{main}
}

func (e *runEnv) newStack(ctx context.Context, spec sweep.Spec, flag string, files []string) (*compose.Stack, error) {
	st, err := compose.New(ctx, compose.Options{Files: files, Service: spec.Service, RunID: e.runID, RunDir: e.dir,
		ReadyURL: strings.TrimRight(spec.URL, "/") + spec.ReadyPath, SweptEnv: spec.SweptEnv(),
		Stdout: e.log, Stderr: e.log})
	if errors.Is(err, compose.ErrEngine) || errors.Is(err, compose.ErrNoComposeCLI) {
		return nil, sweep.BadInput(flag, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	for _, a := range spec.Axes {
		if a.Service != "" && !slices.Contains(st.Services(), a.Service) {
			return nil, sweep.BadInput("axis", "service %q is not in the stack (%s); services: %s",
				a.Service, strings.Join(files, ", "), strings.Join(st.Services(), ", "))
		}
	}
	return st, nil
}

// checkCPUs refuses CPU limits and --cpuset CPUs the engine lacks.
func (e *runEnv) checkCPUs(ctx context.Context, stack *compose.Stack, spec sweep.Spec) (int, error) {
	n, err := stack.NCPU(ctx)
	if err != nil {
		return 0, err
	}
	return n, spec.CheckEngineCPUs(n)
}
