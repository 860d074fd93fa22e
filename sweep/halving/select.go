package halving

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/results/report"
	"github.com/sweep-tool/sweep/sweep"
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
}

// SelectOptions says how much survives and by which rules.
type SelectOptions struct {
	// Keep is the fraction (0..1] of pairs each profile keeps, before ties.
	Keep float64
	// Report holds the error bound and the noise band equivalence is
	// judged with (report.DefaultOptions to judge as the report does).
	Report report.Options
	// Anchors are the first round's Selection.Anchors; nil in the first
	// round, which names them.
	Anchors []string
}

// Selection is what one round keeps.
type Selection struct {
	// Keep and Drop list cell ids in the order measured.
	Keep []string
	Drop []string
	// Anchors hold each CPU limit's lowest RPS and highest P99 in the
	// first round (see the package doc); later rounds pass them on.
	Anchors []string
	// Pairs says which pairs survive in each slice and why.
	Pairs []Kept

	order []string
}

// Next lists the cells to measure in the next round, in the order
// measured: the survivors and the anchors.
func (s Selection) Next() []string {
	var out []string
	for _, id := range s.order {
		if slices.Contains(s.Keep, id) || slices.Contains(s.Anchors, id) {
			out = append(out, id)
		}
	}
	return out
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
	sel := Selection{Anchors: opts.Anchors}
	keep := map[string]bool{}
	for _, slice := range slicesOf(ms) {
		kept, anchors, err := selectSlice(slice, ms, opts)
		if err != nil {
			return Selection{}, err
		}
		sel.Pairs = append(sel.Pairs, kept...)
		if opts.Anchors == nil {
			sel.Anchors = append(sel.Anchors, anchors...)
		}
		for _, m := range ms {
			if m.Cell.Slice() == slice && hasPair(m.Cell, kept) {
				keep[m.Cell.ID] = true
			}
		}
	}
	if opts.Anchors == nil {
		sel.Anchors = inOrder(sel.Anchors, ms)
	}
	for _, m := range ms {
		sel.order = append(sel.order, m.Cell.ID)
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
		return fmt.Errorf("%w: keep fraction %v is outside (0, 1]", sweep.ErrBadInput, opts.Keep)
	}
	for _, m := range ms[min(1, len(ms)):] {
		if m.Round != ms[0].Round {
			return fmt.Errorf("%w: cells of rounds %d and %d compared in one selection", sweep.ErrBadInput, ms[0].Round, m.Round)
		}
	}
	return nil
}

// selectSlice keeps the pairs of one slice and names its anchors; nothing
// when no cell of it finished ok.
func selectSlice(slice string, ms []Measurement, opts SelectOptions) ([]Kept, []string, error) {
	rep, err := report.Build(runOf(slice, ms), opts.Report)
	if errors.Is(err, results.ErrNoFinishedCells) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
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
		top := ranked[:min(len(ranked), max(1, int(math.Ceil(opts.Keep*float64(len(ranked))))))]
		for i, r := range ranked {
			switch {
			case i < len(top):
				find(r.Pair).By[key] = "top"
			case slices.ContainsFunc(top, func(t report.PairScore) bool { return rep.Equivalent(key, r.Pair, t.Pair) }):
				find(r.Pair).By[key] = "tie"
			}
		}
	}
	return kept, anchorsOf(rep), nil
}

// anchorsOf names, per CPU limit of a round's report, the eligible cells
// with the lowest and the highest RPS and P99 (the first in plan order on
// equal figures), each once.
func anchorsOf(rep *report.Report) []string {
	var out []string
	for _, cr := range rep.PerCPU {
		var ext [4]*report.Cell
		for _, c := range cr.Cells {
			if c.Ineligible != "" {
				continue
			}
			if ext[0] == nil {
				ext = [4]*report.Cell{c, c, c, c}
			}
			for i, better := range []bool{c.RPS.Mean < ext[0].RPS.Mean, c.RPS.Mean > ext[1].RPS.Mean,
				c.P99.Mean < ext[2].P99.Mean, c.P99.Mean > ext[3].P99.Mean} {
				if better {
					ext[i] = c
				}
			}
		}
		for _, c := range ext {
			if !slices.Contains(out, c.ID) {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

// runOf turns one slice's measurements into a run the report can build:
// one repetition per cell, failed when the measurement failed or was
// invalid.
func runOf(slice string, ms []Measurement) *results.Run {
	run := &results.Run{RunID: "round"}
	for _, m := range ms {
		if m.Cell.Slice() != slice {
			continue
		}
		rec := results.Record{Cell: m.Cell, Repetition: 1, Status: m.Status,
			Measurement: results.Measurement{RPS: m.RPS, ErrorRate: m.ErrorRate,
				LatencyMS: results.Latency{P99: m.P99MS}, DurationS: m.DurationS}}
		if m.Invalid != "" {
			rec.Status, rec.Reason = results.StatusFailed, "invalid: "+m.Invalid
		}
		run.Cells = append(run.Cells, results.RunCell{CellInfo: m.Cell, Reps: []results.Rep{{Record: rec}}})
	}
	return run
}

// inOrder returns ids in the order the measurements list them.
func inOrder(ids []string, ms []Measurement) []string {
	var out []string
	for _, m := range ms {
		if slices.Contains(ids, m.Cell.ID) {
			out = append(out, m.Cell.ID)
		}
	}
	return out
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
