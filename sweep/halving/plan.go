package halving

import (
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// Round is one pass over the cells that survived the round before.
type Round struct {
	// Warmup is the longest warm-up of the round (ended earlier once
	// throughput settles, when the runner applies sweep/steady).
	Warmup time.Duration
	// Duration is the measured phase: fixed for a screening round, the
	// longest for the final round.
	Duration time.Duration
	// MinDuration, when above zero, makes the round stop each cell at its
	// steady state (sweep/steady) between MinDuration and Duration.
	MinDuration time.Duration
	// Keep is the fraction of pairs each profile keeps for the next round
	// (ties added); unused in the last round.
	Keep float64
}

// Plan is the rounds of a halving sweep, the first measuring every cell,
// the last measuring the finalists.
type Plan struct {
	Rounds []Round
}

// Defaults of DefaultPlan, for a grid measured with a warm-up W and a
// duration D (the study's: 30 s, 5 min).
const (
	screenWarmup    = 5 * time.Second
	screenDuration  = 5 * time.Second
	screenKeep      = 0.25
	finalWarmup     = 10 * time.Second
	finalMinimum    = 60 * time.Second
	shortestScreenS = 2 * time.Second
)

// DefaultPlan is two rounds for a grid of warm-up w and duration d: every
// cell for 5 s after a 5 s warm-up, keeping the best quarter of the pairs
// per profile with their ties (and the anchors); then the finalists after
// a 10 s warm-up until steady, between 60 s and d. No phase is longer than
// the grid's own.
//
// Why two rounds and a quarter: replayed on the study's table (80 cells,
// 4 s overhead, finals steady at 60 s, noise drawn per round, 100 replays),
// keeping a quarter took 16.4 % of the grid's time and agreed with the
// grid on all three profiles in 100 % of the replays at 5 % noise, 97 % at
// 7 %, 94 % at 10 %; a 15 % cut took 13.8 % but fell to 95/83/70 %. A
// second screening round of 30 s (a quarter again) took 20.1 % and agreed
// less (95/85/77 %): most survivors of the first round are ties of the
// best, which the second round must keep anyway, and every noisy round is
// one more chance to drop the best.
func DefaultPlan(w, d time.Duration) Plan {
	return Plan{Rounds: []Round{
		{Warmup: min(w, screenWarmup), Duration: min(d, screenDuration), Keep: screenKeep},
		{Warmup: min(w, finalWarmup), Duration: d, MinDuration: min(d, finalMinimum)},
	}}
}

// Validate checks the plan's shape: at least two rounds, each with a
// positive duration and a minimum no longer than it, fractions in (0, 1].
func (p Plan) Validate() error {
	if len(p.Rounds) < 2 {
		return fmt.Errorf("%w: a halving plan needs at least two rounds, has %d", sweep.ErrBadInput, len(p.Rounds))
	}
	for i, r := range p.Rounds {
		last := i == len(p.Rounds)-1
		switch {
		case r.Duration < shortestScreenS:
			return fmt.Errorf("%w: round %d measures %s, less than %s", sweep.ErrBadInput, i+1, r.Duration, shortestScreenS)
		case r.MinDuration > r.Duration || r.Warmup < 0:
			return fmt.Errorf("%w: round %d: minimum %s above duration %s or negative warm-up", sweep.ErrBadInput, i+1, r.MinDuration, r.Duration)
		case !last && !(r.Keep > 0 && r.Keep <= 1):
			return fmt.Errorf("%w: round %d keeps %v, outside (0, 1]", sweep.ErrBadInput, i+1, r.Keep)
		}
	}
	return nil
}

// Cost is what one cell costs in a round at most: the overhead per cell
// (recreate, ready, reset, write) plus the longest warm-up and measured
// phase.
func (r Round) Cost(overhead time.Duration) time.Duration {
	return overhead + r.Warmup + r.Duration
}

// Times are the worst-case wall times of both strategies over one grid.
type Times struct {
	// Grid is every cell × repetition at the full warm-up and duration.
	Grid time.Duration
	// Halving is every cell surviving every round at its longest phases
	// (the final round repeat times): the bound when no cell can be told
	// apart from the best.
	Halving time.Duration
	// PerRound is each round's share of Halving.
	PerRound []time.Duration
}

// WorstTimes returns the worst-case wall time of a grid of cells measured
// repeat times with warm-up w and duration d, and of the plan over the
// same cells (the screening rounds once, the final round repeat times),
// both with overhead per cell.
func WorstTimes(cells, repeat int, overhead, w, d time.Duration, p Plan) Times {
	repeat = max(repeat, 1)
	t := Times{Grid: time.Duration(cells*repeat) * (overhead + w + d)}
	for i, r := range p.Rounds {
		c := time.Duration(cells) * r.Cost(overhead)
		if i == len(p.Rounds)-1 {
			c *= time.Duration(repeat)
		}
		t.PerRound = append(t.PerRound, c)
		t.Halving += c
	}
	return t
}
