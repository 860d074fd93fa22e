package results

import (
	"fmt"
	"math"
)

// LittlesTolerance is how far a closed model's Little's ratio may sit
// from what the driver's own figures lead one to expect before the cell
// is flagged: beyond it, requests were lost from the count, the run's
// time base is wrong, or the driver has a bug.
const LittlesTolerance = 0.10

// Littles checks a closed-model measurement against Little's law. With N
// virtual users and no think time every user is always inside a request,
// so N ≈ RPS × mean latency. The ratio is
//
//	requests × mean latency / (VUs × measured duration)
//
// over the duration the driver's counts cover (DurationS, not a rate the
// driver computed itself); it equals RPS × mean latency / VUs when RPS is
// requests over that duration.
//
// expected is 1 unless the driver reports iterations and their duration:
// then a user also spends time between its requests inside an iteration
// (k6 runs the script's JavaScript, checks and JSON parsing there), and
// the share of the users' time that requests fill is
// requests × mean latency / (iterations × mean iteration), which is what
// the ratio should equal. k6 also counts the run's stop phase (the last
// iterations finishing after the duration) in its duration; the users
// that are done by then are idle, which the iteration figures show as a
// ratio below expected by at most the stop phase's share of the run
// (0.1–0.3 % in the real k6 outputs of load/k6/testdata).
//
// ok is false for an open model (its concurrency is not fixed), without
// answered requests, or without a latency or duration to judge by.
func Littles(load LoadInfo, m Measurement) (ratio, expected float64, ok bool) {
	if load.Model != "closed" || load.VUs <= 0 || m.Requests <= 0 || m.LatencyMS.Avg <= 0 {
		return 0, 0, false
	}
	busyS := float64(m.Requests) * m.LatencyMS.Avg / 1000
	switch {
	case m.DurationS > 0:
		ratio = busyS / (float64(load.VUs) * m.DurationS)
	case m.RPS > 0:
		ratio = m.RPS * m.LatencyMS.Avg / 1000 / float64(load.VUs)
	default:
		return 0, 0, false
	}
	expected = 1
	if it := m.IterationMS; it != nil && it.Avg > 0 && m.Iterations > 0 {
		expected = busyS / (float64(m.Iterations) * it.Avg / 1000)
	}
	return ratio, expected, true
}

// SetLittles records the Little's law check in rec (see Littles); an
// open model or a phase without answered requests records nothing.
func (r *Record) SetLittles() {
	r.LittlesRatio, r.LittlesExpected = nil, nil
	ratio, expected, ok := Littles(r.Load, r.Measurement)
	if !ok {
		return
	}
	round := func(x float64) *float64 { x = math.Round(x*10000) / 10000; return &x }
	r.LittlesRatio, r.LittlesExpected = round(ratio), round(expected)
}

// LittlesOff says why the record's Little's ratio is off by more than
// LittlesTolerance from what its driver's figures lead one to expect; ""
// when it is within, or the record has none.
func (r Record) LittlesOff() string {
	if r.LittlesRatio == nil {
		return ""
	}
	ratio, expected := *r.LittlesRatio, 1.0
	if r.LittlesExpected != nil && *r.LittlesExpected > 0 {
		expected = *r.LittlesExpected
	}
	if math.Abs(ratio/expected-1) <= LittlesTolerance {
		return ""
	}
	return fmt.Sprintf("Little's law off: RPS × mean latency / VUs is %.2f, expected %.2f: "+
		"requests lost from the count, a wrong time base, or a driver bug", ratio, expected)
}
