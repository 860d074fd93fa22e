package sweep

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// phaseStop ends one load phase early through LoadRequest.Stop once its
// decide function, given every interval so far, says so. The driver calls
// Interval on its own goroutine; the runner reads the outcome after Run
// returned.
type phaseStop struct {
	mu      sync.Mutex
	series  []results.Interval
	stop    chan struct{}
	stopped bool
	decide  func([]results.Interval) bool
}

// stopOn wires a phaseStop into req: each interval goes to the callback
// req already has (if any), then to decide.
func stopOn(req *LoadRequest, decide func([]results.Interval) bool) *phaseStop {
	p := &phaseStop{stop: make(chan struct{}), decide: decide}
	prev := req.Interval
	req.Interval = func(iv results.Interval) {
		if prev != nil {
			prev(iv)
		}
		p.add(iv)
	}
	req.Stop = p.stop
	return p
}

func (p *phaseStop) add(iv results.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.series = append(p.series, iv)
	if !p.stopped && p.decide(p.series) {
		p.stopped = true
		close(p.stop)
	}
}

// steadyStop ends a measured phase once steady.Check says it stopped
// early; decision is the one that stopped it, or the last one taken.
type steadyStop struct {
	*phaseStop
	decision steady.Decision
}

func stopWhenSteady(req *LoadRequest, cfg steady.Config) *steadyStop {
	s := &steadyStop{decision: steady.Decision{Precision: math.NaN(), Reason: "no interval"}}
	s.phaseStop = stopOn(req, func(series []results.Interval) bool {
		s.decision = steady.Check(series, cfg)
		return s.decision.StoppedEarly
	})
	return s
}

// warmupStop ends a warm-up once steady.CheckWarmup says throughput has
// settled; decision is the last one taken.
type warmupStop struct {
	*phaseStop
	decision steady.WarmupDecision
}

func stopWhenSettled(req *LoadRequest, cfg steady.Config) *warmupStop {
	w := &warmupStop{}
	w.phaseStop = stopOn(req, func(series []results.Interval) bool {
		w.decision = steady.CheckWarmup(series, cfg)
		return w.decision.Settled
	})
	return w
}

// warmupOutcome fills the warm-up's part of st: settled, or run to its
// longest (what ran when no interval came).
func (w *warmupStop) outcome(st *results.Stopping, longest time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	st.WarmupSettled = w.decision.Settled
	st.WarmupUsedS = longest.Seconds()
	if w.decision.Settled {
		st.WarmupUsedS = w.decision.UsedS
	}
}

// outcome fills the measured phase's part of st.
func (s *steadyStop) outcome(st *results.Stopping) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.decision
	st.StoppedEarly, st.SteadyAfterS, st.SteadyReason = d.StoppedEarly, d.SteadyAfterS, d.Reason
	st.Apart = d.StoppedEarly && d.Apart
	if !math.IsNaN(d.Precision) && d.Batches > 0 {
		p := math.Round(d.Precision*1e5) / 1e5
		st.PrecisionReached = &p
	}
}

// stoppingOf is the record's stopping block for f before the phases ran.
func stoppingOf(f Fidelity) *results.Stopping {
	return &results.Stopping{Precision: f.Precision, MinDurationS: f.MinDuration.Seconds(),
		MaxDurationS: f.Duration.Seconds(), WarmupMaxS: f.Warmup.Seconds(), SteadyReason: "no interval"}
}

// askedLength is the measured phase the driver was asked to run: up to
// where the rule stopped it, or its whole length.
func askedLength(f Fidelity, st *results.Stopping) time.Duration {
	if st != nil && st.StoppedEarly {
		return time.Duration(st.SteadyAfterS * float64(time.Second))
	}
	return f.Duration
}

// warmUp runs the warm-up: for f.Warmup, or with a precision until
// throughput has settled.
func (r *Runner) warmUp(ctx context.Context, job Job, req LoadRequest, f Fidelity, rec *results.Record) error {
	r.logf("%s %s: warm-up for %s%s", job.Cell.ID, job.Label(), upTo(f), f.Warmup)
	req.Warmup, req.Duration = true, f.Warmup
	var settle *warmupStop
	if f.Precision > 0 {
		settle = stopWhenSettled(&req, f.rule())
	}
	err := r.timed(job, rec, "warmup", func() error { _, err := r.runLoad(ctx, "warm-up load", req); return err })
	if settle != nil {
		settle.outcome(rec.Stopping, f.Warmup)
	}
	return err
}

// upTo says in a log line that a phase may end before its length.
func upTo(f Fidelity) string {
	if f.Precision > 0 {
		return "up to "
	}
	return ""
}
