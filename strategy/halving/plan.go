package halving

import (
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
// duration D (the study's: 30 s, 5 min; the bench's: 5 s, 45 s).
const (
	screenLongest   = 5 * time.Second // a screening round's longest warm-up and measure
	screenShare     = 20              // a screen measures D/20, within [2 s, 5 s]
	finalWarmup     = 10 * time.Second
	finalMinimum    = 60 * time.Second
	shortestScreenS = 2 * time.Second
	// screenKeep keeps, before ties, only each profile's best pair (a
	// fraction so small that ⌈Keep·pairs⌉ is 1 below 100 pairs): the
	// ties, judged with the round's measured noise (Band), keep the
	// rest that could still win.
	screenKeep = 0.01
)

// DefaultPlan is two rounds for a grid of warm-up w and duration d.
//
// Round 1 measures every cell for d/20 (to the second, within 2–5 s)
// after a warm-up as long (at most w), and keeps per profile the best
// pair and every pair the round's noise cannot rule out (report.MayBeat
// with Band). The screens are short because every cell pays for them: on
// the bench's grid (5 s + 45 s, 3 s overhead per cell) a screen of 2 s +
// 2 s costs 7 s against a grid cell's 53 s, one of 3 s + 3 s already 17 %
// of the grid before any final. The demo and the study's stack settle
// within a second or two of a recreated container, and a screen only has
// to tell the pairs that cannot win from the rest (the study's web
// multipliers 2.5–3 were far off at every length). A fixed fraction of
// the pairs kept either too many (on the bench's 6 pairs a quarter of
// each profile's, with three profiles and the anchors, kept 9 of 12
// cells) or dropped close ones (of the study's 20); the band keeps what
// the round cannot separate, however many that is.
//
// Round 2, the finals, measures the survivors after a warm-up of at most
// min(w, 10 s) for at most d, the grid's own length: a final goes on until
// its 95 % intervals of RPS and p99 are apart from those of every other
// finalist at its CPU limit (Run's Runner.Rivals: the pairs it is ranked
// against), never before min(d, 60 s) or the spec's --min-duration, or,
// when the spec sets a precision, until it is steady as a grid cell
// would be. Finals once lasted d/3: on a quiet host a 45 s grid's finals
// of 15 s differed from the same cells' grid figures by −49 % to +29 %,
// and halving's picks left the grid's sets (issue 26). The finalists are
// the pairs a screen could not tell apart, so measuring them less than
// the grid would is where halving would lose its answer; what it saves
// must come from the cells it screens out.
//
// No phase is longer than the grid's own.
func DefaultPlan(w, d time.Duration) Plan {
	screen := min(d, max(shortestScreenS, min(screenLongest, (d/screenShare).Round(time.Second))))
	final := max(screen, d)
	return Plan{Rounds: []Round{
		{Warmup: min(w, screen), Duration: screen, Keep: screenKeep},
		{Warmup: min(w, finalWarmup), Duration: final, MinDuration: min(final, finalMinimum)},
	}}
}

// Validate checks the plan's shape: at least two rounds, each with a
// positive duration and a minimum no longer than it, fractions in (0, 1];
// a plan that is not is bad input of {plan}.
func (p Plan) Validate() error {
	if len(p.Rounds) < 2 {
		return sweep.BadInput("plan", "a halving plan needs at least two rounds, has %d", len(p.Rounds))
	}
	for i, r := range p.Rounds {
		last := i == len(p.Rounds)-1
		switch {
		case r.Duration < shortestScreenS:
			return sweep.BadInput("plan", "round %d measures %s, less than %s", i+1, r.Duration, shortestScreenS)
		case r.MinDuration > r.Duration || r.Warmup < 0:
			return sweep.BadInput("plan", "round %d: minimum %s above duration %s or negative warm-up", i+1, r.MinDuration, r.Duration)
		case !last && !(r.Keep > 0 && r.Keep <= 1):
			return sweep.BadInput("plan", "round %d keeps %v, outside (0, 1]", i+1, r.Keep)
		}
	}
	return nil
}

// CheckSpec refuses, before anything starts, a spec measured by halving
// whose plan (DefaultPlan of its warm-up and duration, what Run is given
// for it) Validate refuses: bad input of {duration}, the input the plan
// is cut from. Any other spec passes, halving on interleaved rounds too,
// whose rungs are rounds (sweep.Spec.Rungs), not the plan's phases.
func CheckSpec(spec sweep.Spec) error {
	if spec.Strategy != sweep.StrategyHalving || spec.HalvingRounds() {
		return nil
	}
	if err := DefaultPlan(spec.Warmup.Std(), spec.Duration.Std()).Validate(); err != nil {
		return sweep.BadInput("duration", "%s is too short for {strategy} halving (%v); give at least %s, or {strategy} grid",
			spec.Duration.Std(), err, shortestScreenS)
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
