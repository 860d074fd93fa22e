package sweep

import (
	"strings"
	"time"
)

// The orchestration time an estimate adds to the loads, measured on the
// demo stack (Docker Engine 20.10, compose v1, 2 CPUs): recreating the
// target, waiting until it is ready, the database reset and the samplers
// took 5-6 s per cell on a quiet host and 6.5-10 s on a busy one; the
// checks before the first cell, the first start of the whole stack and the
// teardown 12-35 s once per run. The estimate takes the busy figures: a
// night planned a little long is better than one that overruns.
const (
	CellOverhead  = 8 * time.Second
	StackOverhead = 30 * time.Second
)

// Estimate is how long a run of a spec is expected to take.
type Estimate struct {
	// Jobs is the number of cell runs (cells × repetitions); Levels the
	// loads each measures (1, or the most a --find-limit search takes).
	Jobs, Levels int
	// PerJob is one cell run: warm-up and measured load at each level
	// and CellOverhead.
	PerJob time.Duration
	// Controls is the number of the run's control measurements on one
	// stack (Spec.ControlCount), PerControl one of them: the warm-up,
	// RunControlDuration and CellOverhead.
	Controls   int
	PerControl time.Duration
	// Rounds and Slices, in an interleaved run (Spec.Schedule), are the
	// rounds at most and the slices of load they give (Jobs targets ×
	// Rounds); PerJob is then a target's start, warm-up and slices.
	Rounds, Slices int
	// Total is Jobs × PerJob plus the controls and StackOverhead; with
	// lanes (Parallel N ≥ 2) the busiest lane's: the control (the
	// warm-up, ControlDuration and CellOverhead) and ⌈Jobs / N⌉ jobs.
	Total time.Duration
}

// Estimate is the expected duration of a run of s, for `sweep plan` and
// the guard against grids too large to run without --yes.
func (s Spec) Estimate() Estimate {
	if s.Interleaved() {
		return s.interleavedEstimate(len(s.Cells()))
	}
	e := Estimate{Jobs: len(s.Cells()) * max(s.Repeat, 1), Levels: 1}
	if f := s.FindLimit; f != nil {
		e.Levels = f.MaxSteps
		if len(f.Levels) > 0 {
			e.Levels = len(f.Levels)
		}
	}
	e.PerJob = time.Duration(e.Levels)*(s.Warmup.Std()+s.Duration.Std()) + CellOverhead
	e.Controls = s.ControlCount(e.Jobs)
	if e.Controls > 0 {
		e.PerControl = s.Warmup.Std() + RunControlDuration(s.Duration.Std()) + CellOverhead
	}
	e.Total = time.Duration(e.Jobs)*e.PerJob + time.Duration(e.Controls)*e.PerControl + StackOverhead
	if n := s.Parallel; n >= 2 {
		control := s.Warmup.Std() + ControlDuration(s.Duration.Std()) + CellOverhead
		e.Total = control + time.Duration((e.Jobs+n-1)/n)*e.PerJob + StackOverhead
	}
	return e
}

// Round renders d as a person reads an estimate: to the second under an
// hour, to the minute above (what rounds up to an hour reads as one).
func Round(d time.Duration) string {
	if s := d.Round(time.Second); s < time.Hour {
		return s.String()
	}
	return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
}
