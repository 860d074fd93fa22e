// Package steady decides when a load phase has measured enough, from the
// per-second series the drivers already deliver (results.Interval). It is
// pure: no clock, no I/O; the caller feeds it the seconds seen so far.
//
// # Measured phase: batch means
//
// The seconds of the phase are cut into batches of B = max(5, ⌊n/10⌋)
// seconds, so there are 5 to 19 batches (10 once the phase is 100 s or
// longer); the leading seconds that do not fill a batch are left out, so
// the batches end at the newest second. Per-second counts are correlated
// (an iteration's requests straddle second boundaries, a GC pause or a
// checkpoint spans a few seconds): batches of at least 5 s make their means
// nearly independent, and about ten of them give Student's t interval 9
// degrees of freedom (t = 2.26) without making each batch short. A batch's
// RPS is its requests over its seconds; its p99 is the request-weighted
// mean of the seconds' p99s (a batch-level proxy: drivers report a p99 per
// second, not mergeable histograms).
//
// The phase is steady when all of these hold:
//   - RPS is precise: the 95 % half-width of the mean of the batch RPSs
//     (t with batches − 1 degrees of freedom) is at most Precision × mean;
//   - RPS does not drift: the least-squares slope of the batch RPSs is not
//     significant at 95 %, or the change it implies across the batches is
//     below Precision of the mean (a trend too small to matter);
//   - p99 has settled: the same two tests on the batch p99s with
//     P99Tolerance in place of Precision, and none of the last three
//     batches' p99 is more than P99Tolerance away from the mean of the
//     batches (a recent spike is not a steady state even when the older
//     batches average it away). Seconds without a p99 (a driver that
//     cannot tell) leave p99 out of the rule, and the decision says so.
//
// Steady means these held at every second of the newest batch, not only at
// the newest second. Looking once a second and stopping at the first look
// that passes would exploit the noise of the standard deviation estimated
// from a handful of batches: on white noise of 8 % per second, 200 seeds,
// stopping at the first pass claimed ±2 % but delivered a median ±2.4 %
// (p90 ±3.1 %, 60 % of them worse than ±2.2 %); holding it for one batch
// delivered a median ±1.5 % (p90 ±2.0 %, 4.5 % worse than ±2.2 %) for a
// median stop at 106 s, where the t interval's own estimate is 88 s.
//
// The phase stops when it is steady and at least MinDuration long (stopped
// early), or when it reaches MaxDuration (not early), whichever comes
// first. With Precision 0 the rule is off: the phase runs to MaxDuration,
// as sweep did before this package.
//
// # Warm-up: settled throughput
//
// The warm-up ends once throughput has settled: at second t ≥ 2W (window
// W = 5 s), the mean RPS of the last W seconds is within Precision of the
// mean of the W seconds before, and the per-second RPSs of those 2W seconds
// show no significant least-squares slope. It never runs past WarmupMax; with
// Precision 0 it runs to WarmupMax.
//
// # Use
//
// Online (the runner, once a second): Check(measured, cfg).Stop ends the
// measured phase; CheckWarmup(warm, cfg).Stop ends the warm-up. Offline
// (replay, tests): Scan and ScanWarmup return the decision the online loop
// would have taken on a whole recorded series.
//
// The runner (sweep/stopping.go) calls them from LoadRequest.Interval
// (of the warm-up too) and ends the phase by closing LoadRequest.Stop,
// which the drivers treat as a normal end with a partial measurement, not
// as cancellation. The record then carries the decision: steady_after_s
// (Decision.SteadyAfterS), stopped_early (StoppedEarly), precision_reached
// (Precision, the RPS half-width over the mean) and warmup_used_s
// (WarmupDecision.UsedS). Config comes from the job's sweep.Fidelity: the
// spec's precision (0 keeps fixed durations), minimum duration, duration
// (MaxDuration) and warm-up (WarmupMax), or a strategy round's own.
package steady
