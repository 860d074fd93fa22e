package sweep

import (
	"context"
	"errors"

	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/pressure"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// Runner takes every cell of a plan through its lifecycle: apply the
// override, wait until ready, read the applied configuration back, reset
// the database, warm up, measure, and write the record. Records are written
// atomically and last, so a cell with a result.json saying ok or failed is
// never run again.
type Runner struct {
	Spec  Spec
	RunID string
	Dir   string // the run directory
	Stack Stack
	// Variants holds the stack of each --variant by name; cells of a
	// variant run on its stack, and the previous stack is taken down when
	// the variant changes, so only one stack runs at a time.
	Variants map[string]Stack
	current  Stack
	Driver   Driver
	// Prepare, when set, runs once, before the first cell's target
	// starts and after the services it needs are up (see start.go), e.g.
	// to check the DSNs against a database that is part of the stack. Its
	// error aborts the run with nothing recorded for that cell.
	Prepare  func(ctx context.Context) error
	prepared bool
	// TargetsUp, when set, runs once on an interleaved run, when its first
	// group's targets are ready (Prepare ran before any started), e.g. to
	// record the facts of what runs (a target's image and node); its
	// error is logged, the run goes on.
	TargetsUp func(ctx context.Context) error
	targetsUp bool
	// Limits, when set, reads the connection limits right after Prepare,
	// before the first cell (see connlimit.go); Replicas is the target's
	// replica count (below 1: one).
	Limits    func(ctx context.Context) (ConnLimits, error)
	Replicas  int
	overLimit map[string]OverLimit // cells over the limit, to skip or flag
	pending   []Job                // the jobs this run has still to do
	up        map[Stack]bool       // stacks whose dependencies were started
	probed    map[Stack]bool       // stacks whose URL answered once
	abort     error                // Prepare's or the URL probe's error: the run stops
	lost      *results.WriteError  // a run file could not be written: the run stops
	// Reset, when set, runs before each cell's warm-up (--db-reset-sql).
	Reset func(ctx context.Context) error
	// Monitor, when set, watches each measured phase and sees what the
	// target received of the load (the proof of delivery); without one
	// the record's delivery block says nothing watched the target.
	Monitor Monitor
	// Measure, when set, replaces a cell's one measured load (reset,
	// warm-up, measured phase) once the target is applied and ready, e.g.
	// with a safe-limit search that loads the cell at several levels with
	// MeasureAt. It fills rec's measurement; its error fails the cell (or
	// marks it interrupted when ctx is done).
	Measure func(ctx context.Context, job Job, dir string, rec *results.Record) error
	// TargetMonitor, when set, is the samplers of one target's slices in
	// an interleaved run (the proof of delivery among them); nil: the
	// slices run without samplers, and their records say nothing watched
	// the target.
	TargetMonitor func(Target) Monitor
	// EnoughRounds, when set, is asked with rounds auto after each round
	// of an interleaved group from MinRounds on (not of a group the
	// connection limit split): true ends the group's rounds, which a
	// resume then does not owe (RoundsFile). A strategy that reads the
	// report sets it: the picks' intervals are apart.
	EnoughRounds func(TargetGroup) bool
	// Cut, when set, decides a rung of successive halving on the
	// interleaved schedule (Spec.Rungs): asked with the group's cells in
	// play after the rung's round k, it names the cells the paired figures
	// of the rounds up to k separate from the best (rungs.go). Unset, a
	// rung drops nothing.
	Cut    func(g TargetGroup, k int) (Cut, error)
	url    string      // the URL of the target of the slice being measured; "": Spec.URL
	limits *ConnLimits // the connection limits the guard read
	// Jobs, when set, replaces the spec's schedule (sweep rerun runs one
	// cell as a new repetition this way).
	Jobs []Job
	// Rivals, when set, names the cells a job's measured phase is ranked
	// against, asked as the phase starts (so it sees every record written
	// before): with any, the phase also stops once its intervals are apart
	// from all of theirs (steady.Config.Rivals), never before the job's
	// minimum; a strategy's finals set it (strategy/halving).
	Rivals func(Job) []steady.Rival
	// RetryFailed runs failed cells of an earlier run again.
	RetryFailed bool
	// Progress, when set, is told about each job.
	Progress Progress
	// Observer, when set, is told each second of every measured phase:
	// the driver's intervals and, from a Monitor that reports them
	// (SampleReporter), the samplers' readings.
	Observer Observer
	// HostCPUs is the engine's CPU count, for the driver-contention
	// warning (0: no warning).
	HostCPUs int
	// Pressure reads the host's CPU pressure before and after each
	// measured phase; nil reads /proc/pressure/cpu.
	Pressure func() (pressure.Reading, error)
	// Log receives one timestamped line per event; nil discards.
	Log io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Sleep waits between cells; nil uses a timer that ctx cancels.
	Sleep func(ctx context.Context, d time.Duration)
}

// ErrTooManyFailures is returned when --max-failures cells have failed.
var ErrTooManyFailures = errors.New("too many failed cells")

// Summary is what a run did.
type Summary struct {
	Records []results.Record
	// Skipped counts jobs already done by an earlier run of this directory.
	Skipped int
	// OverheadS is the median orchestration time per cell (apply, ready,
	// read-back and write), in seconds.
	OverheadS float64
}

// Failed counts records whose status is failed, but for the run's
// control measurements on one stack (Record.ControlSeq): they measure the
// host, not a cell, so a failed one neither fails the run nor counts to
// --max-failures (the report says how many controls it had).
func (s Summary) Failed() int {
	n := 0
	for _, r := range s.Records {
		if r.Status == results.StatusFailed && r.ControlSeq == 0 {
			n++
		}
	}
	return n
}

// Run runs every job not already done. It returns ErrInterrupted when ctx
// is cancelled, ErrTooManyFailures when --max-failures is reached, and a
// *results.WriteError when a run file (result.json, samples.csv, ...)
// could not be written, with the summary so far in each case.
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	if r.Spec.Interleaved() && r.Jobs == nil {
		sum, err := r.runInterleaved(ctx)
		sum.OverheadS = overhead(sum.Records)
		return sum, err
	}
	var sum Summary
	jobs := r.Jobs
	if jobs == nil {
		jobs = Schedule(r.Spec.Cells(), r.Spec.Repeat, r.Spec.Order, r.Spec.Seed)
	}
	var todo []Job
	for _, j := range jobs {
		if done(j.Dir(r.Dir), r.RetryFailed) {
			sum.Skipped++
			continue
		}
		todo = append(todo, j)
	}
	planned := len(todo)
	todo, controls := r.addControls(jobs, todo)
	total := len(jobs) + controls + len(todo) - planned
	sum.Skipped += controls
	if r.Progress != nil {
		r.Progress.Begin(total, sum.Skipped)
	}
	r.pending = todo
	r.logf("%d jobs, %d already done", total, sum.Skipped)
	err := r.runJobs(ctx, todo, &sum)
	sum.OverheadS = overhead(sum.Records)
	return sum, err
}

func (r *Runner) runJobs(ctx context.Context, todo []Job, sum *Summary) error {
	for i, job := range todo {
		if i > 0 && r.Spec.Cooldown > 0 {
			r.sleep(ctx, r.Spec.Cooldown.Std())
		}
		rec := r.runJob(ctx, job)
		if r.abort != nil {
			r.logf("stopping before %s %s: %v", job.Cell.ID, job.Label(), r.abort)
			return r.abort
		}
		sum.Records = append(sum.Records, rec)
		if r.Progress != nil {
			r.Progress.Done(job, rec)
		}
		if err := r.afterJob(ctx, rec, sum); err != nil {
			return err
		}
	}
	return nil
}

// afterJob is what ends a run after a job's record: a run file not
// written, an interruption, --max-failures reached, a load that never
// worked.
func (r *Runner) afterJob(ctx context.Context, rec results.Record, sum *Summary) error {
	if r.lost != nil {
		r.logf("stopping: %v", r.lost)
		return r.lost
	}
	if rec.Status == results.StatusInterrupted || ctx.Err() != nil {
		return ErrInterrupted
	}
	if max := r.Spec.MaxFailures; max > 0 && sum.Failed() >= max {
		r.logf("aborting: %d cells failed (--max-failures %d)", sum.Failed(), max)
		return fmt.Errorf("%w: %d ({max_failures} %d)", ErrTooManyFailures, sum.Failed(), max)
	}
	if err := LoadNeverWorked(sum.Records); err != nil {
		r.logf("aborting: %v", err)
		return err
	}
	return nil
}

// runJob runs one job, retrying failures up to --retries times.
func (r *Runner) runJob(ctx context.Context, job Job) results.Record {
	dir := job.Dir(r.Dir)
	var rec results.Record
	for attempt := 0; attempt <= r.Spec.Retries; attempt++ {
		if attempt > 0 {
			r.logf("%s %s: retry %d of %d after: %s", job.Cell.ID, job.Label(), attempt, r.Spec.Retries, rec.Reason)
		}
		r.logf("%s %s: start", job.Cell.ID, job.Label())
		rec = r.runCell(ctx, job, dir)
		if r.abort != nil {
			break
		}
		rec.Attempts = attempt + 1
		r.logf("%s %s: %s %s", job.Cell.ID, job.Label(), rec.Status, Brief(rec))
		if rec.Status != results.StatusFailed || ctx.Err() != nil || r.lost != nil {
			break
		}
	}
	return rec
}

// done reports whether dir holds a finished record (a failed one counts
// as not done with retryFailed).
func done(dir string, retryFailed bool) bool {
	rec, err := results.ReadRecord(filepath.Join(dir, results.ResultFile))
	if err != nil || (retryFailed && rec.Status == results.StatusFailed) || rec.Status == results.StatusSkipped {
		return false // a skipped cell is checked against the limits again
	}
	return rec.Status.Done()
}

// stackFor returns the stack of the job's variant, taking the previous
// variant's stack down first.
func (r *Runner) stackFor(ctx context.Context, cell Cell) Stack {
	st := r.Stack
	if v, ok := r.Variants[cell.Extras.Variant]; ok {
		st = v
	}
	if r.current != nil && r.current != st {
		prev := r.current
		err := Bounded(context.WithoutCancel(ctx), DownCall(r.Spec.Service), prev.Down)
		if err != nil {
			r.logf("take down the previous variant's stack: %v", err)
		}
		r.stackDown(r.current)
	}
	r.current = st
	return st
}

func (r *Runner) runCell(ctx context.Context, job Job, dir string) results.Record {
	rec := r.newRecord(job.Cell, job.Rep)
	rec.Control, rec.ControlSeq = job.Control, job.Seq
	if err := results.MakeDir(dir); err != nil {
		return r.finish(ctx, &rec, dir, err)
	}
	err := r.phases(ctx, job, dir, &rec)
	if r.abort != nil {
		discard(dir)
		return rec
	}
	return r.finish(ctx, &rec, dir, err)
}

func (r *Runner) newRecord(cell Cell, rep int) results.Record {
	return results.Record{
		SchemaVersion: results.SchemaVersion,
		Cell:          cell.Info(),
		Repetition:    rep,
		Load:          r.Spec.LoadFor(cell, r.Driver.Name()),
		MaxErrors:     r.Spec.ErrorLimit(),
		StartedAt:     r.now(),
		PhasesS:       map[string]float64{},
	}
}

// phases runs the lifecycle of one cell, timing each phase into rec.
func (r *Runner) phases(ctx context.Context, job Job, dir string, rec *results.Record) error {
	if err := r.setup(ctx, job, dir, rec); err != nil {
		return err
	}
	if r.Measure != nil {
		return r.Measure(ctx, job, dir, rec)
	}
	return r.measure(ctx, job, dir, rec)
}

// setup applies the cell to the target, waits until it is ready and
// checks what the engine reports; on a stack's first start it brings up
// the services the target needs and runs Prepare first, and sends one
// request to the URL last (see start.go). Every job is applied, a
// control and the same cell's next job too: the backend recreates the
// target each time, so no job measures what an earlier one warmed up
// (a JIT, caches), as the study's method requires.
func (r *Runner) setup(ctx context.Context, job Job, dir string, rec *results.Record) error {
	cfg := r.targetConfig(job.Cell, dir)
	stack := r.stackFor(ctx, job.Cell)
	if err := r.startDeps(ctx, job, stack, cfg, rec); err != nil {
		return err
	}
	if err := r.overLimitCell(job.Cell, rec); err != nil {
		return err
	}
	err := r.timed(job, rec, "apply", func() error {
		return Bounded(ctx, r.call("apply", 0, OfCallTimeout), func(ctx context.Context) error { return stack.Apply(ctx, cfg) })
	})
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	ready := r.Spec.ReadyTimeout.Std()
	err = r.timed(job, rec, "ready", func() error {
		return Bounded(ctx, r.call("ready wait", ready, OfReadyTimeout), func(ctx context.Context) error { return stack.WaitReady(ctx, ready) })
	})
	if err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	err = r.timed(job, rec, "readback", func() error {
		applied, err := BoundedGet(ctx, r.call("read back", 0, OfCallTimeout), stack.ReadBack)
		if errors.Is(err, ErrCallTimeout) {
			return err
		}
		applied.ServiceEnv = cfg.ServiceEnv
		rec.Applied = applied
		if err != nil {
			return err
		}
		return checkApplied(cfg, applied, r.sweptEnv())
	})
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	return r.probeOnce(ctx, job, stack, rec)
}

// measure checks that the target is still the container read back,
// resets the database, runs the warm-up and the measured load while the
// stack is watched, and checks that the load reached the target.
func (r *Runner) measure(ctx context.Context, job Job, dir string, rec *results.Record) error {
	if err := r.stillSame(ctx, rec); err != nil {
		return err
	}
	if r.Reset != nil && job.Slice == nil { // an interleaved group's is reset once
		err := r.timed(job, rec, "reset", func() error { return Bounded(ctx, r.call("db reset", 0, OfCallTimeout), r.Reset) })
		if err != nil {
			return fmt.Errorf("db reset: %w", err)
		}
	}
	var starts phaseStarts
	err := r.watched(ctx, rec, &starts, func(ctx context.Context) error {
		return r.load(ctx, job, dir, rec, &starts)
	})
	if err != nil {
		return err
	}
	r.connPressure(ctx, rec)
	if err := r.delivered(rec); err != nil {
		return err
	}
	if err := CheckErrors(rec.Measurement, r.Spec.ErrorLimit()); err != nil {
		return err
	}
	return checkLoadRan(rec.Load, askedLength(r.fidelity(job), rec.Stopping), rec.Measurement)
}

// delivered fails a cell whose load did not reach the target: most
// attempts did not connect, or the target received clearly less than the
// driver sent (see CheckReachable and CheckDelivery).
func (r *Runner) delivered(rec *results.Record) error {
	warning, notDelivered := CheckDelivery(r.baseURL(), r.Spec.Service, rec)
	some, err := CheckReachable(r.baseURL(), rec.Measurement)
	if err != nil {
		return err
	}
	if some != "" {
		rec.Warnings = append(rec.Warnings, some)
	}
	// Without a monitor nobody asked for the proof; the record says so.
	if warning != "" && r.Monitor != nil {
		rec.Warnings = append(rec.Warnings, warning)
	}
	return notDelivered
}

// load runs the warm-up (discarded) and the measured phase, with the
// monitor watching the latter; with a precision, the steady-state rule
// may end either phase early.
func (r *Runner) load(ctx context.Context, job Job, dir string, rec *results.Record, starts *phaseStarts) error {
	f := r.fidelity(job)
	rec.Round = f.Round
	var rivals []steady.Rival
	if r.Rivals != nil {
		rivals = r.Rivals(job)
	}
	if f.Precision > 0 || len(rivals) > 0 {
		rec.Stopping = stoppingOf(f)
		rec.Stopping.Rivals = len(rivals)
	}
	req := LoadRequest{BaseURL: r.baseURL(), Load: rec.Load, Dir: dir}
	if f.Warmup > 0 {
		starts.mark("warmup", r.now())
		if err := r.warmUp(ctx, job, req, f, rec); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	req.Duration = f.Duration
	var intervals []results.Interval
	req.Interval = r.observe(job, &intervals)
	var stop *steadyStop
	if rec.Stopping != nil {
		cfg := f.rule()
		cfg.Rivals = rivals
		stop = stopWhenSteady(&req, cfg)
	}
	if r.Monitor != nil {
		r.reportSamples(job)
		stop, err := boundedStart(ctx, r.call("samplers start", 0, OfCallTimeout), func(ctx context.Context) error {
			return r.Monitor.Start(ctx, job.Cell, dir)
		})
		defer stop() // the samplers' context, once Monitor.Stop ended them
		if err != nil {
			return fmt.Errorf("start samplers: %w", err)
		}
	}
	starts.mark("measure", r.now())
	r.logf("%s %s: measured phase for %s%s", job.Cell.ID, job.Label(), upTo(f), req.Duration)
	use := r.startUse()
	err := r.timed(job, rec, "measure", func() error {
		m, err := r.runLoad(ctx, "load", req)
		rec.Measurement = m
		return err
	})
	if stop != nil {
		stop.outcome(rec.Stopping)
	}
	r.endUse(rec, use)
	if w := rec.LittlesOff(); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
	if w := droppedWarning(rec.Load, rec.Measurement); w != "" {
		rec.Warnings = append(rec.Warnings, w)
	}
	if r.Monitor != nil {
		// each of its reads has a bound of its own; this one holds them all
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.Spec.CallLimit())
		merr := r.Monitor.Stop(sctx, rec, dir, intervals)
		cancel()
		var lost *results.WriteError
		if errors.As(merr, &lost) {
			return lost
		}
		if merr != nil {
			rec.Warnings = append(rec.Warnings, "samplers: "+merr.Error())
		}
	}
	if err == nil {
		err = checkAnswering(rec.Load, rec.Measurement, intervals)
	}
	if err != nil {
		return fmt.Errorf("measure: %w", err)
	}
	return nil
}

// baseURL is where the load goes: the URL of the target whose slice is
// measured (interleaved), else the spec's.
func (r *Runner) baseURL() string {
	if r.url != "" {
		return r.url
	}
	return r.Spec.URL
}

// runLoad runs one load phase (call names it) on the driver, bounded by
// the phase's length and the call timeout: a driver that does not end
// (a k6 process that hangs, a load service or Job whose result never
// comes) fails the cell naming the phase.
func (r *Runner) runLoad(ctx context.Context, call string, req LoadRequest) (results.Measurement, error) {
	return BoundedGet(ctx, r.call(call, req.Duration, OfPhase), func(ctx context.Context) (results.Measurement, error) {
		return r.Driver.Run(ctx, req)
	})
}
