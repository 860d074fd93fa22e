package halving

import (
	"errors"
	"math"
	"slices"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// Measurement is one cell measured in one round.
type Measurement struct {
	Cell   results.CellInfo
	Status results.Status
	// Invalid, when set, says why the measurement cannot be trusted (it
	// did not reach the stack under test, the stack changed); such a cell
	// never survives, whatever its figures.
	Invalid   string
	RPS       float64
	P99MS     float64
	ErrorRate float64 // 0..1
	// Round (1, 2, …) and DurationS are the fidelity the cell was
	// measured at.
	Round     int
	DurationS float64
	// Noise is the relative standard error of RPS as the measurement
	// itself shows it (see SeriesNoise); 0 when unknown.
	Noise float64
}

// SelectOptions says how much survives and by which rules.
type SelectOptions struct {
	// Keep is the fraction (0..1] of pairs each profile keeps, before ties.
	Keep float64
	// Report holds the error bound and the least noise band ties are
	// judged with (report.DefaultOptions to judge as the report does); the
	// round's own noise widens the band (see Band).
	Report report.Options
	// First is the first round's measurements, over whose cells the
	// balanced score of every later round is normalised
	// (report.NormRound); nil in the first round, which is its own.
	First []Measurement
}

// Selection is what one round keeps.
type Selection struct {
	// Keep and Drop list cell ids in the order measured.
	Keep []string
	Drop []string
	// Pairs says which pairs survive in each slice and why.
	Pairs []Kept
	// Band is the noise band the round's ties were judged with.
	Band float64
}

// Kept is a surviving pair and the profiles that kept it.
type Kept struct {
	Slice string
	Pair  [2]float64
	// By lists, per profile key that kept the pair, "top" or "tie".
	By map[string]string
}

// Select returns the survivors of one round of measurements.
func Select(ms []Measurement, opts SelectOptions) (Selection, error) {
	if err := validate(ms, opts); err != nil {
		return Selection{}, err
	}
	sel := Selection{Band: Band(ms, opts.Report)}
	opts.Report.NoiseBand = sel.Band
	keep := map[string]bool{}
	for _, slice := range slicesOf(ms) {
		kept, err := selectSlice(slice, ms, opts)
		if err != nil {
			return Selection{}, err
		}
		sel.Pairs = append(sel.Pairs, kept...)
		for _, m := range ms {
			if m.Cell.Slice() == slice && hasPair(m.Cell, kept) {
				keep[m.Cell.ID] = true
			}
		}
	}
	for _, m := range ms {
		if keep[m.Cell.ID] {
			sel.Keep = append(sel.Keep, m.Cell.ID)
		} else {
			sel.Drop = append(sel.Drop, m.Cell.ID)
		}
	}
	return sel, nil
}

func validate(ms []Measurement, opts SelectOptions) error {
	if !(opts.Keep > 0 && opts.Keep <= 1) {
		return sweep.BadInput("keep_fraction", "%v is outside (0, 1]", opts.Keep)
	}
	for _, m := range ms[min(1, len(ms)):] {
		if m.Round != ms[0].Round {
			return sweep.BadInput("measurements", "cells of rounds %d and %d compared in one selection", ms[0].Round, m.Round)
		}
	}
	return nil
}

// Band is the noise band (relative, as report.Options.NoiseBand) a round
// of measurements ms judges its ties with: one single measurement falls
// short of another of the same true value by more than
// report.ScreenBand(σ) = z·√2·σ in only 2.5 % of cases (z =
// report.ScreenZ, one-sided), where σ is the root mean square of the eligible
// measurements' relative standard errors (Measurement.Noise), each
// weighted by its RPS — never
// narrower than the report's own band opts.NoiseBand, because a
// measurement's spread within its own phase misses the drift between
// cells measured minutes apart. A round that measured nothing about its
// noise uses the report's band. The noise is RPS's: a screen's per-second
// p99 swings between the background task's stalls and none (67 and
// 637 ms in one 2 s screen of the demo), which says more about the
// second than about the phase. The weights keep a starved cell from
// setting the band: at one request or none a second (a pool of one
// behind the demo's background task) a 2 s screen's relative error is
// 1.0, which says how few requests it counted, not how far apart the
// cells that could win may lie: unweighted, three such cells of twelve
// held a round of make bench-strategy at the 90 % cap; weighted, 45 %.
//
// A band of the measured noise rather than a fixed fraction of the pairs:
// with few pairs (6 on the bench's grid) a fraction keeps too many, with
// many (20 in the study) too few of the close ones; the band keeps what
// the round cannot tell apart from the best, and only that.
func Band(ms []Measurement, opts report.Options) float64 {
	var noise, rps []float64
	for _, m := range ms {
		if m.Noise > 0 && m.Status == results.StatusOK && m.Invalid == "" && m.ErrorRate <= opts.ErrorBound {
			noise, rps = append(noise, m.Noise), append(rps, m.RPS)
		}
	}
	sigma, ok := confidence.PooledNoise(noise, rps)
	if !ok {
		return opts.NoiseBand
	}
	return min(maxBand, max(opts.NoiseBand, report.ScreenBand(sigma)))
}

// maxBand bounds a round's band below the report's limit (a band of 1
// would make every figure's interval reach zero).
const maxBand = 0.9

// selectSlice keeps the pairs of one slice; nothing when no cell of it
// finished ok.
func selectSlice(slice string, ms []Measurement, opts SelectOptions) ([]Kept, error) {
	rep, err := report.BuildPicks(runOf(slice, ms, opts.First), opts.Report)
	if errors.Is(err, results.ErrNoFinishedCells) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var kept []Kept
	find := func(p [2]float64) *Kept {
		for i := range kept {
			if kept[i].Pair == p {
				return &kept[i]
			}
		}
		kept = append(kept, Kept{Slice: slice, Pair: p, By: map[string]string{}})
		return &kept[len(kept)-1]
	}
	for _, key := range report.ProfileKeys() {
		ranked := rep.Ranking(key)
		top := ranked[:min(len(ranked), topCount(opts.Keep, len(ranked)))]
		for i, r := range ranked {
			switch {
			case i < len(top):
				find(r.Pair).By[key] = "top"
			case slices.ContainsFunc(top, func(t report.PairScore) bool { return rep.MayBeat(key, r.Pair, t.Pair) }):
				find(r.Pair).By[key] = "tie"
			}
		}
	}
	return kept, nil
}

// runOf turns one slice's measurements into the run of a halving round
// the report can build: one repetition per cell measured (failed when the
// measurement failed or was invalid), and the first round's measurements
// (first, or ms in the first round) as its screening records, so the
// report normalises the balanced score over the first round's cells as
// it does for the run itself (report.NormRound). A cell of the first round
// not measured now is a screened-out one.
func runOf(slice string, ms, first []Measurement) *results.Run {
	if first == nil {
		first = ms
	}
	run := &results.Run{RunID: "round", Strategy: report.StrategyHalving}
	at := map[string]int{}
	cell := func(info results.CellInfo) *results.RunCell {
		i, ok := at[info.ID]
		if !ok {
			i = len(run.Cells)
			at[info.ID] = i
			run.Cells = append(run.Cells, results.RunCell{CellInfo: info})
		}
		return &run.Cells[i]
	}
	for _, m := range first {
		if m.Cell.Slice() == slice {
			c := cell(m.Cell)
			c.Screens = append(c.Screens, results.Screen{Round: report.NormRound, Record: m.Record()})
		}
	}
	for _, m := range ms {
		if m.Cell.Slice() == slice {
			c := cell(m.Cell)
			c.Reps = append(c.Reps, results.Rep{Record: m.Record()})
		}
	}
	return run
}

// Record is the measurement as a record: failed when it failed or was
// invalid.
func (m Measurement) Record() results.Record {
	rec := results.Record{Cell: m.Cell, Repetition: 1, Status: m.Status,
		Measurement: results.Measurement{RPS: m.RPS, ErrorRate: m.ErrorRate,
			LatencyMS: results.Latency{P99: m.P99MS}, DurationS: m.DurationS}}
	if m.Invalid != "" {
		rec.Status, rec.Reason = results.StatusFailed, "invalid: "+m.Invalid
	}
	return rec
}

func slicesOf(ms []Measurement) []string {
	var out []string
	for _, m := range ms {
		if s := m.Cell.Slice(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// hasPair reports whether any of the cell's multiplier pairs was kept.
func hasPair(c results.CellInfo, kept []Kept) bool {
	pairs := c.Mults
	if len(pairs) == 0 {
		pairs = [][2]float64{{c.WebMult, c.DBMult}}
	}
	for _, p := range pairs {
		for _, k := range kept {
			if k.Pair == p {
				return true
			}
		}
	}
	return false
}

// SeriesNoise is the relative standard error of a phase's mean RPS from
// its per-second series: the coefficient of variation of the seconds'
// RPS over the root of their number (seconds taken as independent); 0
// with fewer than two seconds.
func SeriesNoise(series []results.Interval) float64 {
	rps, _ := steady.Batches(series, 1)
	cv, ok := confidence.CV(rps)
	if !ok {
		return 0
	}
	return cv / math.Sqrt(float64(len(rps)))
}

// topCount is how many of n pairs a profile keeps before ties: the
// fraction keep of them, rounded up, at least one.
func topCount(keep float64, n int) int { return max(1, int(math.Ceil(keep*float64(n)))) }
