package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/sweep-tool/sweep/results"
)

// Lanes run one schedule on several runners at once, each with a stack of
// its own (on a swarm: its own node), so a grid over N equal nodes takes
// about 1/N of the time. Every runner shares the run's spec cells, run id
// and directory; what differs is its Stack, and the URL, monitor and
// reset that reach that stack. The jobs are dealt round robin. With
// Control, the schedule's first job is measured on every lane before the
// rest (as extra repetitions of that cell on the lanes after the first),
// so the report can tell whether the lanes measure alike.
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

// Run runs the lanes side by side and merges what they recorded. The
// first error of a lane is returned once every lane stopped; a lane that
// fails does not stop the others.
func (l *Lanes) Run(ctx context.Context, jobs []Job) (Summary, []LaneControl, error) {
	if len(l.Runners) == 0 || len(jobs) == 0 {
		return Summary{}, nil, nil
	}
	n := len(l.Runners)
	deal := make([][]Job, n)
	rest := jobs
	maxRep := 0
	for _, j := range jobs {
		maxRep = max(maxRep, j.Rep)
	}
	if l.Control {
		for k := range deal {
			c := jobs[0]
			if k > 0 {
				c.Rep = maxRep + k
			}
			deal[k] = append(deal[k], c)
		}
		rest = jobs[1:]
	}
	for i, j := range rest {
		deal[i%n] = append(deal[i%n], j)
	}
	sums := make([]Summary, n)
	errs := make([]error, n)
	var prog *laneProgress
	if l.Progress != nil {
		total, finished := 0, 0
		for k, r := range l.Runners {
			for _, j := range deal[k] {
				total++
				if done(j.Dir(r.Dir), r.RetryFailed) {
					finished++
				}
			}
		}
		l.Progress.Begin(total, finished)
		prog = &laneProgress{p: l.Progress}
	}
	var wg sync.WaitGroup
	for k, r := range l.Runners {
		r.Jobs = deal[k]
		if prog != nil {
			r.Progress = prog
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[k], errs[k] = r.Run(ctx)
		}()
	}
	wg.Wait()
	var sum Summary
	var controls []LaneControl
	for k, s := range sums {
		sum.Records = append(sum.Records, s.Records...)
		sum.Skipped += s.Skipped
		if l.Control && len(s.Records) > 0 && s.Records[0].Cell.ID == jobs[0].Cell.ID {
			rec := s.Records[0]
			controls = append(controls, LaneControl{Lane: k + 1, Rec: rec, RPS: rec.RPS, P99: rec.LatencyMS.P99})
		}
	}
	sum.OverheadS = overhead(sum.Records)
	return sum, controls, errors.Join(errs...)
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
