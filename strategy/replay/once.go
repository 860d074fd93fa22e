package replay

import (
	"errors"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// replayer holds what every replay of one run shares.
type replayer struct {
	cells []*cell
	// grid holds the grid's profiles per slice (nil for a slice without
	// an ok cell).
	grid map[string][]report.Profile
	opts Options
	// byID finds a cell by its id.
	byID  map[string]*cell
	model *model
	// noise is each round's at its length.
	noise []Noise
}

// outcome is one replay.
type outcome struct {
	rounds      []RoundOutcome
	timeS       float64
	picks       []Pick
	fromSamples int
	assumed     int
}

// once replays the plan once with the noise drawn from rng.
func (rp *replayer) once(rng *rand.Rand) (outcome, error) {
	var o outcome
	rounds := rp.opts.Plan.Rounds
	cand := rp.cells
	var first, last []halving.Measurement
	var band float64
	for i, round := range rounds[:len(rounds)-1] {
		ms := make([]halving.Measurement, len(cand))
		t := 0.0
		for j, c := range cand {
			ms[j] = halving.Measurement{Cell: c.info, Status: c.status, ErrorRate: c.errorRate,
				RPS: perturb(rng, c.rps, rp.noise[i].RPS), P99MS: perturb(rng, c.p99, rp.noise[i].P99),
				Round: i + 1, DurationS: round.Duration.Seconds(), Noise: rp.noise[i].RPS}
			t += rp.screenCost(c, round)
		}
		sel, err := halving.Select(ms, halving.SelectOptions{Keep: round.Keep, Report: *rp.opts.Report, First: first})
		if err != nil {
			return o, err
		}
		if first == nil {
			first = ms
		}
		last, band = ms, sel.Band
		o.rounds = append(o.rounds, RoundOutcome{Round: i + 1, Measured: len(cand), Kept: sel.Keep, TimeS: t, Band: sel.Band})
		o.timeS += t
		cand = slices.DeleteFunc(slices.Clone(rp.cells), func(c *cell) bool { return !slices.Contains(sel.Keep, c.info.ID) })
	}
	final := rounds[len(rounds)-1]
	t := 0.0
	var ids []string
	reps := map[string][]results.Rep{}
	finalists := slices.DeleteFunc(slices.Clone(last), func(m halving.Measurement) bool {
		return !slices.ContainsFunc(cand, func(c *cell) bool { return c.info.ID == m.Cell.ID })
	})
	measured := map[string]float64{} // the finals replayed so far: their lengths
	for _, c := range cand {
		rivals := halving.Rivals(c.info.ID, finalists, band, func(id string) (steady.Span, steady.Span, bool) {
			n, ok := measured[id]
			if !ok {
				return steady.Span{}, steady.Span{}, false
			}
			return steady.Intervals(rp.byID[id].upTo(n))
		})
		s, own := rp.finalLength(c, final, rivals)
		measured[c.info.ID] = s
		if own {
			o.fromSamples++
		} else {
			o.assumed++
		}
		t += c.overheadS + final.Warmup.Seconds() + s
		ids = append(ids, c.info.ID)
		reps[c.info.ID] = rp.finalReps(rng, c, s)
	}
	o.rounds = append(o.rounds, RoundOutcome{Round: len(rounds), Measured: len(cand), Kept: ids, TimeS: t})
	o.timeS += t
	picks, err := rp.compare(reps, first)
	o.picks = picks
	return o, err
}

// screenCost is a cell's time in a screening round: its overhead, the
// round's warm-up and duration; a cell that failed in the grid fails as
// early here.
func (rp *replayer) screenCost(c *cell, r halving.Round) float64 {
	cost := c.overheadS + r.Warmup.Seconds() + r.Duration.Seconds()
	if c.status != results.StatusOK {
		return min(cost, c.gridS)
	}
	return cost
}

// finalReps are a finalist's repetitions as its final of s seconds would
// measure them: the grid's figures, each perturbed by the noise of that
// length (none when the noise given has no length).
func (rp *replayer) finalReps(rng *rand.Rand, c *cell, s float64) []results.Rep {
	cvR, cvP := rp.model.finals(s)
	reps := slices.Clone(c.rc.Reps)
	if cvR == 0 && cvP == 0 {
		return reps
	}
	for i := range reps {
		reps[i].RPS = perturb(rng, reps[i].RPS, cvR)
		reps[i].LatencyMS.P99 = perturb(rng, reps[i].LatencyMS.P99, cvP)
	}
	return reps
}

// finalLength is a finalist's measured phase as its final would have
// run it on the cell's own series: until apart from its rivals
// (halving.Rivals), steady at the replay's precision, or the longest.
func (rp *replayer) finalLength(c *cell, final halving.Round, rivals []steady.Rival) (float64, bool) {
	cfg := steady.Config{Precision: rp.opts.Precision, MinDuration: final.MinDuration, MaxDuration: final.Duration, Rivals: rivals}
	return c.finalS(cfg, rp.assumed(final))
}

func (rp *replayer) assumed(final halving.Round) time.Duration {
	if rp.opts.AssumedSteady > 0 {
		return rp.opts.AssumedSteady
	}
	return final.Duration
}

// compare builds the finalists' report per slice as the halving run's own
// report would be: the finalists at their finals' figures (reps, by cell
// id), every cell's
// first-round measurement as its screening record (which normalises the
// balanced score, report.NormRound), and compares each profile's pick
// with the grid's.
func (rp *replayer) compare(reps map[string][]results.Rep, first []halving.Measurement) ([]Pick, error) {
	run := &results.Run{RunID: "finals", Strategy: report.StrategyHalving}
	for _, c := range rp.cells {
		rc := results.RunCell{CellInfo: c.info, Reps: reps[c.info.ID]}
		for _, m := range first {
			if m.Cell.ID == c.info.ID {
				rc.Screens = append(rc.Screens, results.Screen{Round: m.Round, Record: m.Record()})
			}
		}
		run.Cells = append(run.Cells, rc)
	}
	var picks []Pick
	for _, slice := range sliceNames(rp.cells) {
		grid := rp.grid[slice]
		if grid == nil {
			continue
		}
		rep, err := report.BuildPicks(run.Only(slice), *rp.opts.Report)
		if err != nil && !errors.Is(err, results.ErrNoFinishedCells) {
			return nil, err
		}
		for i, g := range grid {
			var h report.Profile
			if rep != nil {
				h = rep.Profiles[i]
			}
			picks = append(picks, Pick{Slice: slice, Profile: g.Key, Grid: pairOf(g), Halving: pairOf(h), Agrees: g.Admits(h)})
		}
	}
	return picks, nil
}

func pairOf(p report.Profile) [2]float64 {
	if !p.Found {
		return [2]float64{}
	}
	return [2]float64{p.WebMult, p.DBMult}
}

// gridPicks returns the grid report's profiles per slice.
func gridPicks(run *results.Run, opts report.Options) (map[string][]report.Profile, error) {
	out := map[string][]report.Profile{}
	for _, slice := range run.Slices() {
		rep, err := report.Build(run.Only(slice), opts)
		if errors.Is(err, results.ErrNoFinishedCells) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out[slice] = rep.Profiles
	}
	return out, nil
}

func sliceNames(cells []*cell) []string {
	var out []string
	for _, c := range cells {
		if !slices.Contains(out, c.slice) {
			out = append(out, c.slice)
		}
	}
	return out
}
