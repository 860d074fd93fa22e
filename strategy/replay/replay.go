// Package replay runs a finished full-grid run through the halving
// strategy (strategy/halving) as if it had been measured that way: which cells
// each round would have kept, the share of the run's wall time it would
// have needed, and whether each profile's recommendation would have been
// the grid's (the same pair, or one the grid's report calls equivalent).
//
// Costs come from the run: each cell's overhead (its phases_s beyond
// warm-up and measure) is paid once per round the cell takes part in, with
// the round's warm-up and duration; a finalist's measured phase lasts as
// long as sweep/steady would have let it on the cell's own samples.csv
// (Options.AssumedSteady for a cell without one). The grid's time is one
// repetition of every cell, as measured.
//
// Values: a screening round sees the grid's figures of each cell,
// perturbed by the noise of the round's length (none in a single replay
// without Options.Seeds), and each finalist the grid's figures perturbed
// by the noise of its own final's length: a shorter measurement is a
// noisier one, and a replay that saw one noise for every length could
// not tell what measuring briefly costs. The noise at each length is
// measured from the run (the spread of windows of that length within
// its cells' per-second samples, and of repeated cells), or given
// (Options.NoiseCV, at Options.NoiseAt, scaled to other lengths as white
// noise; without a length, as before, the screens' noise whatever their
// length and none for the finalists). Each screening value
// carries the round's noise as its relative standard error
// (halving.Measurement.Noise), so the round judges its ties with the band
// a live round measuring that noise would use (halving.Band). The
// finalists' report normalises its balanced score over the first round's
// cells, the finalists at their figures and the others at their screens
// (report.NormRound), as the run's own report does.
package replay

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// ErrNoNoise is returned when noisy replays were asked for without a
// noise figure and the run has nothing to measure its noise from (neither
// repetitions nor per-second samples).
var ErrNoNoise = errors.New("the run has neither repetitions nor per-second samples to measure its noise from")

// Options say which strategy to replay and how.
type Options struct {
	// Plan is the strategy's rounds; zero means halving.DefaultPlan for
	// the run's own warm-up and duration.
	Plan halving.Plan
	// Precision is the finals' steady-state precision
	// (steady.DefaultPrecision when 0).
	Precision float64
	// Seeds is the number of noisy replays; 0 means one replay of the
	// grid's figures as measured. Seed is the first seed (replay i uses
	// Seed + i), so results repeat.
	Seeds int
	Seed  uint64
	// NoiseCV, when above zero, is the relative noise of RPS and p99 of
	// a figure measured for NoiseAt, scaled to each round's length as
	// white noise (by √(NoiseAt/length)); without NoiseAt, of every
	// screening round whatever its length, the finalists unperturbed.
	// Zero measures the noise at each length from the run.
	NoiseCV float64
	NoiseAt time.Duration
	// AssumedSteady is the finals' measured phase for cells without a
	// per-second series; zero means the final round's full duration.
	AssumedSteady time.Duration
	// Report holds the error bound and noise band of the grid's report
	// and of each round's equivalence; nil means report.DefaultOptions.
	Report *report.Options
}

// Result is what the replays found.
type Result struct {
	RunID    string `json:"run_id"`
	Strategy string `json:"strategy"`
	// Fraction is halving's wall time over the grid's, the mean over the
	// replays (above 1 where halving would have cost more, as on a grid
	// of a few short cells); FractionMax the largest.
	Fraction    float64 `json:"fraction"`
	FractionMax float64 `json:"fraction_max"`
	GridS       float64 `json:"grid_s"`
	HalvingS    float64 `json:"halving_s"`
	// Agreement is, per profile key, the share of replays whose pick was
	// the grid's or equivalent to it in every slice.
	Agreement map[string]float64 `json:"agreement"`
	Replays   int                `json:"replays"`
	Noise     []Noise            `json:"noise"`
	Plan      []RoundPlan        `json:"plan"`
	// Rounds and Picks are the first replay's (the grid's own figures
	// when Seeds is 0).
	Rounds []RoundOutcome `json:"rounds"`
	Picks  []Pick         `json:"picks"`
	// SteadyFromSamples and SteadyAssumed count the finalists whose
	// measured phase came from their series or from AssumedSteady.
	SteadyFromSamples int      `json:"steady_from_samples"`
	SteadyAssumed     int      `json:"steady_assumed"`
	Notes             []string `json:"notes,omitempty"`
}

// RoundPlan is one round of the replayed plan, in seconds.
type RoundPlan struct {
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	MinimumS  float64 `json:"min_duration_s,omitempty"`
	Keep      float64 `json:"keep,omitempty"`
}

// RoundOutcome is what one round measured and kept.
type RoundOutcome struct {
	Round    int      `json:"round"`
	Measured int      `json:"measured"`
	Kept     []string `json:"kept"`
	TimeS    float64  `json:"time_s"`
	// Band is the noise band a screening round judged its ties with
	// (halving.Band); 0 for the finals.
	Band float64 `json:"band,omitempty"`
}

// Pick compares one profile's pick in one slice.
type Pick struct {
	Slice   string     `json:"slice,omitempty"`
	Profile string     `json:"profile"`
	Grid    [2]float64 `json:"grid"`
	Halving [2]float64 `json:"halving"`
	Agrees  bool       `json:"agrees"`
}

// Replay replays run through the halving strategy with opts.
func Replay(run *results.Run, opts Options) (*Result, error) {
	opts, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	cells, notes, err := cellsOf(run)
	if err != nil {
		return nil, err
	}
	plan, err := planFor(run.RunID, cells, opts.Plan)
	if err != nil {
		return nil, err
	}
	opts.Plan = plan
	grid, err := gridPicks(run, *opts.Report)
	if err != nil {
		return nil, err
	}
	noise, err := opts.noise(cells)
	if err != nil {
		return nil, err
	}
	rp := &replayer{cells: cells, grid: grid, opts: opts, model: noise, noise: noise.rounds(plan), byID: map[string]*cell{}}
	for _, c := range cells {
		rp.byID[c.info.ID] = c
	}
	res := rp.result(run.RunID, notes)
	if res.GridS <= 0 {
		return nil, sweep.BadInput("report", "run %s: its records carry no phase times to price a strategy by", run.RunID)
	}
	for i := range max(1, opts.Seeds) {
		rng := rand.New(rand.NewPCG(opts.Seed+uint64(i), 0x5eed))
		o, err := rp.once(rng)
		if err != nil {
			return nil, err
		}
		res.add(o, i == 0)
	}
	res.finish()
	return res, nil
}

// planFor is the plan to replay: the given one, else halving.DefaultPlan
// of the cells' warm-up and duration. A default plan that does not hold
// is the run's fault (its phases are too short, or were not recorded),
// bad input of {report}; a given one that does not is bad input of
// {plan}.
func planFor(runID string, cells []*cell, given halving.Plan) (halving.Plan, error) {
	if len(given.Rounds) > 0 {
		return given, given.Validate()
	}
	w, d := gridShape(cells)
	plan := halving.DefaultPlan(w, d)
	var b *sweep.BadInputError
	if err := plan.Validate(); errors.As(err, &b) {
		return plan, &sweep.BadInputError{Field: "report", Err: err,
			Msg: fmt.Sprintf("run %s: its cells' warm-up %s and duration %s give no halving plan: %s", runID, w, d, b.Msg)}
	}
	return plan, nil
}

func (o Options) resolve() (Options, error) {
	if o.Report == nil {
		def := report.DefaultOptions()
		o.Report = &def
	}
	if o.Precision == 0 {
		o.Precision = steady.DefaultPrecision
	}
	switch {
	case o.Seeds < 0:
		return o, sweep.BadInput("seeds", "%d replays asked for", o.Seeds)
	case o.NoiseCV < 0 || o.NoiseCV >= 1:
		return o, sweep.BadInput("noise_cv", "%v is outside 0 up to below 1", o.NoiseCV)
	case o.NoiseAt != 0 && (o.NoiseAt < time.Second || o.NoiseCV == 0):
		return o, sweep.BadInput("noise_cv", "a noise stated at %s needs a CV above 0 and a length of 1s or more", o.NoiseAt)
	case o.Precision < 0 || o.Precision >= 1:
		return o, sweep.BadInput("precision", "%v is outside 0 up to below 1", o.Precision)
	}
	return o, nil
}

// noise is the given noise, or the run's own when noisy replays need it.
func (o Options) noise(cells []*cell) (*model, error) {
	if o.NoiseCV > 0 {
		return givenModel(o.NoiseCV, o.NoiseAt), nil
	}
	if o.Seeds == 0 {
		return givenModel(0, 0), nil
	}
	measured, ok := measuredModel(cells)
	if !ok {
		return nil, ErrNoNoise
	}
	return measured, nil
}
