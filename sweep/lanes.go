package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// Lanes run one schedule on several runners at once, each with a stack of
// its own (on a swarm: its own node), so a grid over N equal nodes takes
// about 1/N of the time. Every runner shares the run's spec cells, run id
// and directory; what differs is its Stack, and the URL, monitor and
// reset that reach that stack.
//
// With Control, every lane first measures the schedule's first cell, all
// lanes at once (each waits before its load until every lane's target is
// ready, or its control failed) for ControlDuration after the usual
// warm-up: the control, filed as cells/<id>/control<lane> apart from the
// cell's repetitions, shows whether the lanes' nodes measure alike. Lane
// 1 then measures that cell's first job, applied again as every job is
// (never on the target its control warmed up). The other jobs wait in
// one queue in the schedule's order; a lane takes the next one whenever
// it is free, so the lanes finish together even when cells take unequal
// time (a steady-state stop, a failure, a slower node), and a lane that
// stops (its stack failed) leaves its share to the others.
type Lanes struct {
	Runners []*Runner
	Control bool
	// Progress, when set, is told about every lane's jobs: Begin once
	// with all of them, Phase and Done one call at a time.
	Progress Progress
}

// LaneControl is the control cell as one lane measured it.
type LaneControl struct {
	Lane int            `json:"lane"`
	Rec  results.Record `json:"-"`
	RPS  float64        `json:"rps"`
	P99  float64        `json:"p99_ms"`
}

// Control measurements are a quarter of the cells' measured phase, at
// least MinControl (a cell shorter than that: its whole length).
const MinControl = 5 * time.Second

// ControlDuration is how long the control cell's measured phase lasts
// for cells measured for d.
func ControlDuration(d time.Duration) time.Duration {
	return min(d, max(d/4, MinControl))
}

// ControlJob is the control cell job on lane (from 1): job's cell,
// measured with the spec's warm-up for ControlDuration, to its full
// length (no steady-state stop, so every lane's control measures alike).
func ControlJob(spec Spec, job Job, lane int) Job {
	f := spec.Fidelity()
	f.Duration, f.Precision, f.MinDuration = ControlDuration(f.Duration), 0, 0
	return Job{Cell: job.Cell, Fidelity: &f, Control: lane}
}

// Deal is what each lane runs before it takes jobs from the shared
// queue, and the queue: with control, every lane's control and then, on
// lane 1, the first job; without, nothing and every job.
func Deal(specs []Spec, jobs []Job, control bool) ([][]Job, []Job) {
	first := make([][]Job, len(specs))
	if !control || len(specs) < 2 || len(jobs) == 0 {
		return first, jobs
	}
	for k, spec := range specs {
		first[k] = []Job{ControlJob(spec, jobs[0], k+1)}
	}
	first[0] = append(first[0], jobs[0])
	return first, jobs[1:]
}

// Run runs the lanes side by side and merges what they recorded. The
// first error of a lane is returned once every lane stopped; a lane that
// fails does not stop the others, except Ctrl-C and --max-failures
// (counted over all lanes), which stop every lane.
func (l *Lanes) Run(ctx context.Context, jobs []Job) (Summary, []LaneControl, error) {
	if len(l.Runners) == 0 || len(jobs) == 0 {
		return Summary{}, nil, nil
	}
	n := len(l.Runners)
	specs := make([]Spec, n)
	for k, r := range l.Runners {
		specs[k] = r.Spec
	}
	first, queue := Deal(specs, jobs, l.Control)
	d := &dealer{first: first, queue: queue, maxFailures: l.Runners[0].Spec.MaxFailures}
	if l.Control && n > 1 {
		d.start = newStartLine(n)
	}
	var prog *laneProgress
	if l.Progress != nil {
		total, finished := 0, 0
		count := func(j Job) {
			total++
			if done(j.Dir(l.Runners[0].Dir), l.Runners[0].RetryFailed) {
				finished++
			}
		}
		for _, js := range first {
			for _, j := range js {
				count(j)
			}
		}
		for _, j := range queue {
			count(j)
		}
		l.Progress.Begin(total, finished)
		prog = &laneProgress{p: l.Progress}
	}
	sums := make([]Summary, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k, r := range l.Runners {
		if prog != nil {
			r.Progress = prog
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[k], errs[k] = d.lane(ctx, k, r)
		}()
	}
	wg.Wait()
	var sum Summary
	var controls []LaneControl
	for k, s := range sums {
		for _, rec := range s.Records {
			if rec.Control > 0 {
				controls = append(controls, LaneControl{Lane: k + 1, Rec: rec, RPS: rec.RPS, P99: rec.LatencyMS.P99})
				continue
			}
			sum.Records = append(sum.Records, rec)
		}
		sum.Skipped += s.Skipped
	}
	sum.OverheadS = overhead(sum.Records)
	if d.tooMany != nil {
		errs = append(errs, d.tooMany)
	}
	return sum, controls, errors.Join(errs...)
}

// dealer hands each lane its jobs: its own first, then the queue's next.
type dealer struct {
	mu          sync.Mutex
	first       [][]Job
	queue       []Job
	stopped     bool             // --max-failures was reached: no lane takes more
	failed      int              // failed jobs over all lanes
	measured    []results.Record // the lanes' records in the order they ended, for LoadNeverWorked
	maxFailures int              // the spec's --max-failures (0: never)
	tooMany     error            // the error that stopped the lanes for it
	start       *startLine
}

// next is lane k's next job, false when there is none or the lanes stop.
func (d *dealer) next(k int) (Job, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.stopped:
		return Job{}, false
	case len(d.first[k]) > 0:
		j := d.first[k][0]
		d.first[k] = d.first[k][1:]
		return j, true
	case len(d.queue) > 0:
		j := d.queue[0]
		d.queue = d.queue[1:]
		return j, true
	}
	return Job{}, false
}

// giveBack puts the jobs lane k was to run first (not its control) at
// the front of the queue, for the other lanes, when lane k stopped.
func (d *dealer) giveBack(k int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var back []Job
	for _, j := range d.first[k] {
		if j.Control == 0 {
			back = append(back, j)
		}
	}
	d.first[k] = nil
	d.queue = append(back, d.queue...)
}

// failures counts the failed records of a job and stops every lane once
// --max-failures of them failed.
func (d *dealer) failures(s Summary) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failed += s.Failed()
	d.measured = append(d.measured, s.Records...)
	if d.stopped {
		return
	}
	if d.maxFailures > 0 && d.failed >= d.maxFailures {
		d.stopped = true
		d.tooMany = fmt.Errorf("%w: %d ({max_failures} %d)", ErrTooManyFailures, d.failed, d.maxFailures)
	} else if err := LoadNeverWorked(d.measured); err != nil {
		d.stopped, d.tooMany = true, err
	}
}

// lane runs lane k's jobs on r one at a time (Runner.Run with one job,
// so the runner keeps its stack between them), with the spec's cooldown
// between two it measures, until none is left, the lanes stop, or r
// fails.
func (d *dealer) lane(ctx context.Context, k int, r *Runner) (Summary, error) {
	var sum Summary
	measured := false
	defer d.start.arrive(k)
	for ctx.Err() == nil {
		job, ok := d.next(k)
		if !ok {
			return sum, nil
		}
		if measured && r.Spec.Cooldown > 0 && !done(job.Dir(r.Dir), r.RetryFailed) {
			r.sleep(ctx, r.Spec.Cooldown.Std())
		}
		r.Jobs = []Job{job}
		measure := r.Measure
		if job.Control > 0 && d.start != nil {
			r.Measure = d.start.hold(k, r, measure)
		}
		s, err := r.Run(ctx)
		r.Measure = measure
		measured = measured || len(s.Records) > 0
		sum.Records = append(sum.Records, s.Records...)
		sum.Skipped += s.Skipped
		if errors.Is(err, ErrTooManyFailures) {
			err = nil // counted over all lanes below
		}
		d.failures(s)
		if err != nil {
			d.giveBack(k) // before the other lanes pass the start line
		}
		if job.Control > 0 {
			d.start.arrive(k)
		}
		if err != nil {
			return sum, err
		}
	}
	return sum, ErrInterrupted
}

// startLine holds every lane's control load until each lane's target is
// ready or its control ended without a load, so the controls measure
// the nodes over the same seconds.
type startLine struct {
	mu      sync.Mutex
	arrived []bool
	left    int
	all     chan struct{}
}

func newStartLine(n int) *startLine {
	return &startLine{arrived: make([]bool, n), left: n, all: make(chan struct{})}
}

// arrive marks lane k at the line (once; later calls do nothing).
func (s *startLine) arrive(k int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.arrived[k] {
		return
	}
	s.arrived[k] = true
	if s.left--; s.left == 0 {
		close(s.all)
	}
}

// hold is a Runner.Measure that marks lane k at the line, waits for
// every lane, then measures as measure would (r's own load when nil).
func (s *startLine) hold(k int, r *Runner, measure func(context.Context, Job, string, *results.Record) error) func(context.Context, Job, string, *results.Record) error {
	return func(ctx context.Context, job Job, dir string, rec *results.Record) error {
		s.arrive(k)
		select {
		case <-s.all:
		case <-ctx.Done():
			return fmt.Errorf("wait for the other lanes' controls: %w", ctx.Err())
		}
		if measure != nil {
			return measure(ctx, job, dir, rec)
		}
		return r.measure(ctx, job, dir, rec)
	}
}

// ControlSpread says whether the lanes' control measurements differ by
// more than tol (a fraction, e.g. 0.1) in RPS: the relative spread
// (max - min) / mean of the ok ones, and a sentence when it is over tol.
func ControlSpread(controls []LaneControl, tol float64) (float64, string) {
	lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for _, c := range controls {
		if c.Rec.Status != results.StatusOK {
			continue
		}
		lo, hi, sum, n = min(lo, c.RPS), max(hi, c.RPS), sum+c.RPS, n+1
	}
	if n < 2 || sum == 0 {
		return 0, ""
	}
	spread := (hi - lo) / (sum / float64(n))
	if spread <= tol {
		return spread, ""
	}
	return spread, fmt.Sprintf("the lanes measured the control cell %s %.0f %% apart in RPS (%.0f to %.0f), more than the %.0f %% their cells can be compared at: the nodes are not equal",
		controls[0].Rec.Cell.ID, 100*spread, lo, hi, 100*tol)
}

// laneProgress is one Progress shared by the lanes' runners, begun by
// Lanes.Run with every lane's jobs: the runners' own Begin calls are
// dropped, and calls never overlap.
type laneProgress struct {
	mu sync.Mutex
	p  Progress
}

func (lp *laneProgress) Begin(int, int) {}

func (lp *laneProgress) Phase(job Job, phase string) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	lp.p.Phase(job, phase)
}

func (lp *laneProgress) Done(job Job, rec results.Record) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	lp.p.Done(job, rec)
}
