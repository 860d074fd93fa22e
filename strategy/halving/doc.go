// Package halving is the successive-halving strategy of a sweep: measure
// every cell briefly, keep for the next round what could still win, measure
// the survivors longer, and measure the finalists in full (stopped once
// they can be ranked against each other, or steady). Select decides one round's survivors; Plan describes the
// rounds and what they cost at worst. It is pure: no I/O, no clock; the
// runner (or the replay of a finished run) feeds it measurements.
//
// # What survives a round
//
// The unit is the multiplier pair (web × CPU, pool × web), because that is
// what the report's profiles recommend: a pair survives with its cells at
// every CPU limit. For each profile (latency-first, balanced,
// throughput-first, as report ranks them) the best Keep fraction of
// the pairs survives (at least one; the default plan keeps just the best),
// and so does every pair the round cannot rule out as at least as good as
// one of those (report.MayBeat: a pair the report calls equivalent to it,
// or one whose objectives' differences from it, summed over the CPU
// limits, reach zero with each limit's tolerance — its figures at the
// favourable ends of their intervals, the kept pair's at the unfavourable
// ends — added in quadrature). The intervals are the report's for a figure measured
// once, value × (1 ± band/2), with the band the round's own (Band): z₉₅ ×
// √2 × the root mean square of the cells' relative standard errors, which
// each screen measures from its per-second series (SeriesNoise), never
// narrower than the report's 5 %. So a pair within noise of a survivor is
// never dropped, however many there are, and a quiet round drops more than
// a noisy one. A pair with a cell that failed, was invalid, or had errors
// above the report's bound (1 %) at any CPU limit never survives, as it
// could never be recommended. Cells of different slices (extra axes) are
// separate grids and are selected separately.
//
// # The balanced score across rounds
//
// The report normalises the balanced score by the spans of RPS and P99 per
// CPU limit. Over the cells compared, those spans would shrink as cells
// are screened out (the lowest RPS and highest P99 go first) and reorder
// the finalists. So a halving run normalises over the cells of its first
// round, the one round that measured every cell (report.NormRound):
// every later round's Select (SelectOptions.First) and the run's report
// (from the cells' round-1 records and their longer measurements) score
// over the same cells, whatever was dropped. Only the spans matter to a
// ranking (the lower ends add one constant per CPU limit to every pair),
// so a short round that reads every cell higher or lower than a full one
// does not move it. Each cell counts at the best fidelity the run has:
// a cell measured again at length with those figures, a cell only
// screened with its screen pulled in by the first round's noise as the
// run shows it (the screens' spread about the same cells' longer
// figures). Spans taken from the screens as they were carried that
// noise: replaying the study, the balanced pick agreed with the grid's in
// 99 % of replays at 5 % noise per value, 64 % at 10 %, none at 21 %
// (noise widens the RPS span most, which zeroes its weight); with the
// best-fidelity spans, in 99, 97 and 95 %, which is what spans known
// exactly give (with Band's 95 % quantile then; its 97.5 % one keeps the
// winner more often: 99.5, 99 and 98.5 %).
//
// # Use by the runner
//
// Run drives the rounds through a sweep.Runner: each screening round's
// jobs carry the round's sweep.Fidelity and Screening, so their records
// (round k, the duration measured) go to cells/<id>/round<k>; the final
// round's jobs measure the survivors spec.Repeat times in
// cells/<id>/r<N>, where the report reads them, each up to the grid's
// duration until its intervals are apart from every other finalist's at
// its CPU limit (Rivals, through Runner.Rivals) or, with the spec's
// precision, steady (sweep/steady). Resume mid-round needs nothing stored: Select is a function
// of a round's records (and of round 1's), so a resumed run recomputes
// each finished round's selection and measures what is missing. The
// report of a halving run analyses the final round's cells (the
// finalists, one fidelity) and lists screened-out cells apart
// with their short-round figures. `sweep plan` prints Describe: the
// worst-case times of both strategies (WorstTimes) and the rounds.
package halving
