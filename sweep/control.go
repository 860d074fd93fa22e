package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// DefaultControlEvery is how many jobs a grid run on one stack measures
// at most between two measurements of its control cell, unless told
// otherwise.
//
// The arithmetic: a run of M jobs measures 1 + max(2, ⌈M/N⌉) controls
// (ControlCount: one at the start, one at the end, one at least in the
// middle), at most 2 + M/N once M > N. A control costs the cell overhead
// o, the warm-up w and RunControlDuration(d) = d/10 of a cell's o + w +
// d. For M ≥ 20 and N = 10 the controls take at most (2/20 + 1/10) ×
// (o + w + d/10) / (o + w + d) of the grid's time: 5 % exactly when o +
// w + d/10 is a quarter of a cell, i.e. when d ≥ 5 (o + w). With the
// CLI's defaults (o = 8 s, w = 30 s, d = 5 min) a control costs 68 s
// beside a 338 s cell: a 20-job grid measures 3 controls (204 s of 6 760
// s, 3.0 %), a 100-job grid 11 (748 s of 33 800 s, 2.2 %). A grid of
// fewer than 2N jobs still measures MinControls, the fewest the report
// measures its noise from: 6.0 % of a 10-job grid, 12 % of a 5-job one.
// Shorter cells, whose overhead and warm-up dominate, pay more: say
// --control-every 20 there.
const DefaultControlEvery = 10

// RunControlDuration is how long one of the run's control measurements
// lasts for cells measured for d: a tenth of d, at least MinControl (a
// cell shorter than that: its whole length). It is shorter than a cell,
// so its spread errs on the wide side of a cell's noise.
func RunControlDuration(d time.Duration) time.Duration {
	return min(d, max(d/10, MinControl))
}

// RunControlJob is the seq-th (from 1) measurement of the run's control
// cell on one stack: the spec's warm-up, then RunControlDuration to its
// full length (no steady-state stop, so every measurement is alike).
func RunControlJob(spec Spec, cell Cell, seq int) Job {
	f := spec.Fidelity()
	f.Duration, f.Precision, f.MinDuration = RunControlDuration(f.Duration), 0, 0
	return Job{Cell: cell, Fidelity: &f, Control: 1, Seq: seq}
}

// measuresControls reports whether a run of s measures its control cell
// over and over: a sequential grid (not halving, not --find-limit, not
// interleaved, whose rounds are its noise) on one stack (--parallel runs
// lanes, whose controls are their own) with ControlEvery above 0.
func (s Spec) measuresControls() bool {
	return s.ControlEvery > 0 && (s.Strategy == "" || s.Strategy == StrategyGrid) &&
		s.FindLimit == nil && s.Parallel == 0 && !s.Interleaved()
}

// MinControls is the fewest control measurements a run's noise is
// measured from (report.MinControls), and so the fewest a run that
// measures its control takes: at its start, in its middle and at its end.
const MinControls = 3

// ControlCount is how many control measurements a run of s with jobs
// jobs left to do takes: one more than controlStretches, none when it
// measures none or has nothing to do.
func (s Spec) ControlCount(jobs int) int {
	if !s.measuresControls() || jobs == 0 {
		return 0
	}
	return 1 + controlStretches(jobs, s.ControlEvery)
}

// controlStretches is how many stretches of jobs the controls cut a
// schedule of jobs jobs into: ⌈jobs/every⌉, so no stretch is longer than
// every, and never fewer than MinControls − 1, so that even a grid of a
// job or two measures MinControls controls.
func controlStretches(jobs, every int) int {
	return max(MinControls-1, (jobs+every-1)/every)
}

// WithControls returns todo with a control job before its first job and
// after the last job of each of controlStretches stretches of nearly
// equal length (the k-th of n ends after job ⌈k × len(todo) / n⌉): at
// least MinControls controls, at the start, spread over the run and at
// its end, never more than every jobs apart. A schedule of one job has
// two controls after it. control(seq) gives the job of the seq-th
// measurement, numbered on from first. Nothing to do takes no control.
func WithControls(todo []Job, every int, first int, control func(seq int) Job) []Job {
	if len(todo) == 0 || every < 1 {
		return todo
	}
	n := controlStretches(len(todo), every)
	out := make([]Job, 0, len(todo)+n+1)
	out = append(out, control(first))
	done := 0
	for k := 1; k <= n; k++ {
		end := (k*len(todo) + n - 1) / n
		out = append(out, todo[done:end]...)
		out = append(out, control(first+k))
		done = end
	}
	return out
}

// controlsSoFar reads, in the run directory, which cell earlier
// invocations measured as the control (on lane 1 of one stack) and how
// many finished measurements it has: a resumed run keeps that cell and
// numbers its next measurement after the last finished one. "" and 0
// when there are none.
func controlsSoFar(run string, cells []Cell) (ref string, done, last int) {
	for _, c := range cells {
		for seq := 1; ; seq++ {
			dir := results.ControlSeqDir(run, c.ID, 1, seq)
			if _, err := os.Stat(dir); err != nil {
				break
			}
			rec, err := results.ReadRecord(filepath.Join(dir, results.ResultFile))
			if err == nil && rec.Status.Done() {
				ref, done, last = c.ID, done+1, seq
			}
		}
		if ref != "" {
			return ref, done, last
		}
	}
	return "", 0, 0
}

// MiddleCell is the run's default control cell: the cell at the middle
// of every axis (the CPU limits, web and pool multipliers, each sorted,
// at index n/2; the extra axes at their first combination), false when
// no cell has it (a grid the baseline alone makes up). The grid's first
// cell is a poor reference: its smallest web count and pool are often
// set by a stall or a queue that barely moves with the host (on the
// demo, web 1 with a pool of 1 held its p99 at ~620 ms through a 1-min
// load of 3–19 while the cells with larger pools moved 0.17–3.2×), so
// the noise it measures is not the grid's.
func (s Spec) MiddleCell() (Cell, bool) {
	mid := func(xs []float64) float64 {
		if len(xs) == 0 {
			return 0
		}
		ys := slices.Sorted(slices.Values(xs))
		return ys[len(ys)/2]
	}
	cpus, pair := mid(s.CPUs), [2]float64{mid(s.WebMult), mid(s.DBMult)}
	for _, c := range s.Cells() {
		if c.CPUs == cpus && slices.Contains(c.Mults, pair) {
			return c, true
		}
	}
	return Cell{}, false
}

// addControls puts the run's control measurements among todo (see
// WithControls) when the spec measures them and the runner runs its
// own schedule (jobs: the whole of it): the control cell is the one an
// earlier invocation measured, else Spec.Control, else MiddleCell, else
// the schedule's first. It returns the jobs to run and how many controls
// earlier invocations finished.
func (r *Runner) addControls(jobs, todo []Job) ([]Job, int) {
	if r.Jobs != nil || !r.Spec.measuresControls() || len(jobs) == 0 {
		return todo, 0
	}
	ref, done, last := controlsSoFar(r.Dir, r.Spec.Cells())
	if ref == "" {
		ref = r.Spec.Control
	}
	cell := jobs[0].Cell
	if c, ok := r.Spec.MiddleCell(); ok {
		cell = c
	}
	if c, err := r.Spec.FindCell(ref); ref != "" && err == nil {
		cell = c
	}
	return WithControls(todo, r.Spec.ControlEvery, last+1, func(seq int) Job {
		return RunControlJob(r.Spec, cell, seq)
	}), done
}
