package sweep

import (
	"math/rand/v2"
	"slices"

	"github.com/sweep-tool/sweep/results"
)

// Orders of a run.
const (
	// OrderGrid runs each cell's repetitions back to back, cells in grid
	// order.
	OrderGrid = "grid"
	// OrderInterleave runs repetition rounds (every cell's r1, then every
	// cell's r2, …) and within a round takes the CPU limits in turn, so slow
	// drift of a shared host is spread over all limits instead of landing
	// on one.
	OrderInterleave = "interleave"
	// OrderShuffle runs every (cell, repetition) in a random order drawn
	// from --seed.
	OrderShuffle = "shuffle"
)

// Job is one repetition of one cell.
type Job struct {
	Cell Cell
	Rep  int
	// Fidelity, when set, is how this job measures its cell instead of
	// the spec's (an adaptive strategy's round).
	Fidelity *Fidelity
	// Screening files the job's record under cells/<id>/round<k> (k =
	// Fidelity.Round) instead of r<Rep>: a strategy's short measurement,
	// which the report shows apart from the full-length repetitions.
	Screening bool
	// Control, when above 0, is the lane (from 1) of run --parallel that
	// measures the job as the control cell (see Lanes): its record is
	// filed under cells/<id>/control<lane>, apart from the repetitions.
	Control int
	// Seq, with Control, numbers the run's repeated measurements of its
	// control cell on one stack (see WithControls), from 1: the record is
	// filed under cells/<id>/control<lane>.<seq>. 0 for a lane's one
	// start-of-run control.
	Seq int
	// Slice, in an interleaved run, is where the job stands in its round
	// (TargetGroup.Round): its record, the cell's Rep-th repetition, is
	// one slice of load (Rep the round).
	Slice *results.LoadSlice
}

// Schedule lists every job of the plan in the run's order.
func Schedule(cells []Cell, repeat int, order string, seed uint64) []Job {
	repeat = max(repeat, 1)
	var jobs []Job
	switch order {
	case OrderInterleave:
		rr := roundRobin(cells)
		for rep := 1; rep <= repeat; rep++ {
			for _, c := range rr {
				jobs = append(jobs, Job{Cell: c, Rep: rep})
			}
		}
	default:
		for _, c := range cells {
			for rep := 1; rep <= repeat; rep++ {
				jobs = append(jobs, Job{Cell: c, Rep: rep})
			}
		}
	}
	if order == OrderShuffle {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		r.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	}
	return jobs
}

// roundRobin takes one cell of each CPU limit in turn.
func roundRobin(cells []Cell) []Cell {
	var limits []float64
	groups := map[float64][]Cell{}
	for _, c := range cells {
		if _, ok := groups[c.CPUs]; !ok {
			limits = append(limits, c.CPUs)
		}
		groups[c.CPUs] = append(groups[c.CPUs], c)
	}
	out := make([]Cell, 0, len(cells))
	for i := 0; len(out) < len(cells); i++ {
		for _, l := range limits {
			if g := groups[l]; i < len(g) {
				out = append(out, g[i])
			}
		}
	}
	return out
}

// ValidOrder reports whether order is one of the known orders.
func ValidOrder(order string) bool {
	return slices.Contains([]string{OrderGrid, OrderInterleave, OrderShuffle}, order)
}
