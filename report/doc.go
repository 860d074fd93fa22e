// Package report turns a run directory (results.Run) into what a person
// reads the morning after a sweep: matrices per CPU limit, a
// recommendation with its ties, the Pareto frontier of RPS against P99,
// scaling across CPU limits, a bottleneck label per cell, charts, and the
// exports (report.md, report.html, results.csv, results.json). It also
// compares two runs and gates on regressions.
//
// Build does all the arithmetic once into a Report; the renderers (terminal,
// Markdown, HTML, CSV, JSON) only format it and write to an io.Writer, so
// they agree with each other by construction.
//
// # Rules
//
// Noise. A cell with two or more finished repetitions carries the mean and a
// 95 % confidence interval from Student's t distribution. A single
// measurement carries the run's noise band: measured from its figures
// measured more than once (the control cell's controls, the repeated
// cells) once they hold two degrees of freedom, else assumed
// (Options.NoiseBand, default 5 %), and then the report says the noise
// was not measured and calibrates no set (Noise.NotMeasured). Its
// interval is value × (1 ± band/2), so two single measurements closer
// than the band are not told apart. Two figures are equivalent when
// their intervals overlap. A winner is reported together with every cell
// equivalent to it; when there are any, the report says the data cannot
// separate them.
//
// Interleaved runs (sweep.ScheduleInterleaved). Every target of a group
// ran at once and each round gave each one slice of load, so the report
// reads each slice against its round: its ratio to the median of the
// round's ok slices (RPS and p99 apart), times the group's level (the
// mean of those medians over the rounds). A cell's figure is the mean of
// these over its rounds and its interval Student's t across them, the
// rounds being its repetitions; the noise band is measured from them
// (their coefficients of variation pooled as repeated cells' are), no
// control cell runs. What the host did to a whole round cancels; a round
// inside which the host's level stepped is cut there, each piece read
// against its own median (pieces.go). A group
// of one, a slice alone ok in its round (left out) and the groups of a
// CPU limit the connection limit split apart are not paired (see
// paired.go), and Noise.Pairing says so.
//
// Eligibility. Failed cells and cells whose mean error rate exceeds
// Options.ErrorBound (default 1 %) never win anything.
//
// Balanced. Per CPU limit, each eligible cell gets the score
// (RPS − min RPS)/(max RPS − min RPS) − (P99 − min P99)/(max P99 − min P99),
// with minima and maxima over the eligible cells of that CPU limit; in a
// run measured by successive halving, over the cells its first screening
// round (NormRound) measured eligibly, which is every cell, so that the
// cells screened out (the lowest RPS and highest P99 go first) do not
// change the finalists' scores (see strategy/halving). There each cell
// counts at the best fidelity measured: a finalist with its final
// figures, a cell only screened with its screen pulled towards the
// middle by the first round's noise as the run shows it (screenSpans). The
// balanced cell maximises it. A linear score with positive weights is
// maximised on the Pareto frontier, so this is the frontier's knee against
// a line of slope one in normalised units: throughput gained and latency
// paid count equally, each as a share of what the grid spans. It is simple
// to explain and needs no threshold; its weakness is that a very bad cell
// widens a range and so shifts the weights, which is why the frontier and
// the matrices are shown beside it.
//
// Across CPU limits. A profile's (throughput-first, balanced,
// latency-first) measured best is the multiplier pair (web × CPU, pool ×
// web) with the best mean normalised objective over the CPU limits where
// that pair was measured at every limit: RPS / best RPS, best P99 / P99,
// or the balanced score. Pairs whose cell is equivalent to its cell at
// every CPU limit are listed as equivalent.
//
// The pick. Where the data cannot separate several pairs (a CPU limit's
// measured best and its ties; a profile's set across CPU limits, grown
// by Calibrate with measured noise), the pick is the one with the fewest
// web threads, then the smallest pool (settle), so two runs whose sets
// share that pair pick alike; the measured best is named beside it where
// it differs.
//
// Safe limit. A cell of run --find-limit searched the highest load level
// at which its SLO held: the level L held and the lowest failing level F
// did not, so its limit lies in [L, F) (open above when no level failed).
// Over repetitions the matrix shows the mean L; the bracket runs from the
// lowest L to the highest F. The best cell has the highest mean; cells
// whose brackets overlap the best's are equivalent, because the searches
// cannot order them. A cell where no level held never wins anything.
//
// Scaling is linear enough ("near-linear") when a least-squares line of
// best RPS against CPU limit has R² ≥ 0.98 and RPS per core at every limit
// stays at or above 80 % of RPS per core at the smallest limit.
//
// Universal Scalability Law. With at least three CPU limits, Gunther's
// X(N) = λN / (1 + σ(N−1) + κN(N−1)) is fitted to the best RPS per CPU
// limit N (and to the best safe limits when the cells searched them): σ
// is contention (the share of work that queues on one lock or resource),
// κ coherency (the cost of keeping workers in step, which grows with N²
// and makes throughput fall past N* = √((1−σ)/κ)), λ the figure of one
// CPU without either. The fit is least squares on X with λ > 0 and σ,
// κ ≥ 0: a weighted regression on the linearised form N/X = (1 + σ(N−1) +
// κN(N−1))/λ gives the start, gonum's BFGS the minimum over ln λ, √σ and
// √κ; each face of the constraints is fitted too and an extra free
// parameter is kept only when it removes more than 1e-9 of the total sum
// of squares, so a binding constraint gives exactly 0. Prediction
// intervals (95 %) use the delta method on the fit's Jacobian: it is
// deterministic and needs no seed, where a bootstrap over three to five
// residuals has too few distinct resamples to mean much. The noise comes
// from the points' repetitions when any best cell was repeated (points
// measured once count with the assumed noise band), else from the
// residuals (Student's t with points − free parameters degrees of
// freedom; never narrower than the points' noise band carried through
// the same way, since a curve that happens to pass through single
// measurements does not make them exact), else — when the curve has as many free parameters as points
// and passes through all of them — from the assumed noise band of each
// point. A prediction outside the measured CPU limits is an
// extrapolation; it is flagged when it lies past N* or beyond twice the
// largest measured limit.
package report
