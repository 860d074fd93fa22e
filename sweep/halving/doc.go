// Package halving is the successive-halving strategy of a sweep: measure
// every cell briefly, keep for the next round what could still win, measure
// the survivors longer, and measure the finalists in full (stopped at a
// steady state). Select decides one round's survivors; Plan describes the
// rounds and what they cost at worst. It is pure: no I/O, no clock; the
// runner (or the replay of a finished run) feeds it measurements.
//
// # What survives a round
//
// The unit is the multiplier pair (web × CPU, pool × web), because that is
// what the report's profiles recommend: a pair survives with its cells at
// every CPU limit. For each profile (latency-first, balanced,
// throughput-first, as results/report ranks them) the best Keep fraction of
// the pairs survives (at least one), and so does every pair the report
// calls equivalent to one of those under that profile (its figures overlap
// at every CPU limit, with the round's noise band): a pair within noise of
// a survivor is never dropped. A pair with a cell that failed, was
// invalid, or had errors above the report's bound (1 %) at any CPU limit
// never survives, as it could never be recommended. Cells of different
// slices (extra axes) are separate grids and are selected separately.
//
// # The balanced score across rounds
//
// The report normalises the balanced score by the spans of RPS and P99 over
// the cells it compares. Compared among survivors alone, the spans shrink
// and the finalists' scores (and order) are no longer the grid's; taken
// from the first round, the spans carry that round's noise, and the
// extremes of twenty noisy values are further apart than the true ones (in
// a replay of the study at 10 % noise per round, the balanced pick then
// agreed with the grid's in 67 % of the replays). So the first round names
// anchors: per CPU limit the eligible cells with the lowest and the highest
// RPS and P99. They are measured again in every later round beside the
// survivors (Selection.Next; the best ones are survivors anyway), so the
// spans of every later round and of the finalists' report are the anchors',
// measured at the same fidelity as the cells they score: dropping cells
// cannot change a score, and short-round noise does not reach the spans.
//
// # Use by the runner
//
// Run drives the rounds through a sweep.Runner: each screening round's
// jobs carry the round's sweep.Fidelity and Screening, so their records
// (round k, the duration measured) go to cells/<id>/round<k>; the final
// round's jobs measure the survivors and anchors spec.Repeat times with
// the spec's precision (sweep/steady) in cells/<id>/r<N>, where the report
// reads them. Resume mid-round needs nothing stored: Select is a function
// of a round's records, so a resumed run recomputes each finished round's
// selection (and the anchors from round 1's) and measures what is
// missing. The report of a halving run analyses the final round's cells
// (finalists and anchors, one fidelity) and lists screened-out cells apart
// with their short-round figures. `sweep plan` prints Describe: the
// worst-case times of both strategies (WorstTimes) and the rounds.
package halving
