package steady

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
)

// Defaults of the rule (see the package doc for what each means).
const (
	DefaultPrecision    = 0.02
	DefaultP99Tolerance = 0.10
)

// Shape of the batch means and the windows; fixed, not tunable, so every
// record's "steady" means the same thing.
const (
	minBatchS     = 5    // shortest batch, seconds
	targetBatches = 10   // batches once the phase is long enough
	minBatches    = 5    // fewest batches an interval is computed from
	settleBatches = 3    // the newest batches whose p99 must sit near the mean
	warmupWindowS = 5    // W of the warm-up rule, seconds
	slackS        = 0.05 // a driver's tick arriving late still ends its second
)

// Config is what the stopping rule is asked to reach and within which
// bounds. The zero value stops nothing early.
type Config struct {
	// Precision is the largest relative 95 % half-width of the mean RPS
	// (0.02: ±2 %) at which the measured phase may stop, and how closely two
	// warm-up windows must agree; 0 turns the rule off (fixed durations).
	Precision float64
	// P99Tolerance bounds how far the batch p99s may spread, drift or
	// stray from their mean (relative; DefaultP99Tolerance when 0).
	P99Tolerance float64
	// MinDuration is the shortest measured phase; MaxDuration the longest
	// (the phase stops there whether steady or not; 0: no bound).
	MinDuration time.Duration
	MaxDuration time.Duration
	// WarmupMax is the longest warm-up; 0 means no warm-up.
	WarmupMax time.Duration
	// Rivals, when there are any, are the cells the phase is ranked
	// against: the phase is also steady (Decision.Apart) once its 95 %
	// intervals of RPS and p99 are apart from every rival's, with the
	// precision rule on or off.
	Rivals []Rival
}

// Decision is the rule's verdict on a measured phase as of its newest
// second, and the figures behind it.
type Decision struct {
	// Stop says the phase should end now: steady for at least MinDuration
	// (StoppedEarly), or MaxDuration reached.
	Stop         bool
	StoppedEarly bool
	// Steady says every condition held at ElapsedS (whatever the duration
	// bounds say); Apart that the condition was being apart from every
	// rival (Config.Rivals).
	Steady   bool
	Apart    bool
	ElapsedS float64
	// SteadyAfterS is the phase length at which it was found steady and
	// stopped early; 0 when it was not.
	SteadyAfterS float64
	// RPS is the mean of the batch RPSs and RPSHalfWidth its 95 %
	// half-width; Precision is their ratio (NaN before minBatches batches).
	RPS          float64
	RPSHalfWidth float64
	Precision    float64
	// P99MS is the mean of the batch p99s; P99Known is false when the
	// driver reported no per-second p99 (p99 then took no part).
	P99MS    float64
	P99Known bool
	// Batches and BatchS are the batch means' shape.
	Batches int
	BatchS  int
	// Reason says in words why the phase is not steady (or "steady").
	Reason string
}

// Check decides on a measured phase whose seconds so far are series (the
// driver's intervals, oldest first). Call it after every interval; end the
// phase when Stop is set.
func Check(series []results.Interval, cfg Config) Decision {
	d := at(series, cfg)
	if d.Steady {
		need := batchSeconds(len(series))
		for k := len(series) - 1; k > len(series)-need; k-- {
			if k < 1 || !at(series[:k], cfg).Steady {
				d.Steady = false
				d.Reason = fmt.Sprintf("steady for %d of the %d s of a batch", len(series)-k, need)
				break
			}
		}
	}
	return d.bound(cfg)
}

// Scan returns the decision the online loop would have taken on a whole
// recorded phase: Check at the first second where it says Stop, or at the
// last second when it never does (the recording ended before MaxDuration).
// It assesses each second once, so a long series costs O(n²), not O(n³).
func Scan(series []results.Interval, cfg Config) Decision {
	run := 0
	var d Decision
	for k := 1; k <= len(series); k++ {
		d = at(series[:k], cfg)
		if d.Steady {
			run++
		} else {
			run = 0
		}
		if need := batchSeconds(k); d.Steady && run < need {
			d.Steady = false
			d.Reason = fmt.Sprintf("steady for %d of the %d s of a batch", run, need)
		}
		if d = d.bound(cfg); d.Stop {
			return d
		}
	}
	return d
}

// at assesses the phase as of its newest second alone.
func at(series []results.Interval, cfg Config) Decision {
	d := Decision{ElapsedS: elapsed(series), Precision: math.NaN(), Reason: ruleOff}
	if cfg.Precision > 0 {
		d.assess(series, cfg)
	}
	if len(cfg.Rivals) > 0 && !d.Steady {
		d.apartFrom(series, cfg.Rivals)
	}
	return d
}

const ruleOff = "rule off (precision 0)"

// bound applies the duration bounds: stop early when steady and long
// enough, stop anyway at the maximum.
func (d Decision) bound(cfg Config) Decision {
	atMax := cfg.MaxDuration > 0 && d.ElapsedS >= cfg.MaxDuration.Seconds()-slackS
	longEnough := d.ElapsedS >= cfg.MinDuration.Seconds()-slackS
	switch {
	case d.Steady && longEnough && !atMax:
		d.Stop, d.StoppedEarly, d.SteadyAfterS = true, true, d.ElapsedS
	case atMax:
		d.Stop = true
	case d.Steady:
		d.Reason = fmt.Sprintf("steady, but shorter than the minimum %s", cfg.MinDuration)
	}
	return d
}

// assess fills the figures and Steady from the batch means.
func (d *Decision) assess(series []results.Interval, cfg Config) {
	bs := batchesOf(series, batchSeconds(len(series)))
	d.Batches = len(bs)
	if len(bs) > 0 {
		d.BatchS = bs[0].seconds
	}
	if len(bs) < minBatches {
		d.Reason = fmt.Sprintf("%d of the %d batches an interval needs", len(bs), minBatches)
		return
	}
	rps, p99, p99Known := batchFigures(bs)
	d.RPS, d.RPSHalfWidth = confidence.MeanHalfWidth(rps)
	if d.RPS <= 0 {
		d.Reason = "no requests"
		return
	}
	d.Precision = d.RPSHalfWidth / d.RPS
	var why []string
	if !(d.Precision <= cfg.Precision) {
		why = append(why, fmt.Sprintf("RPS ±%.1f %% is wider than ±%.1f %%", 100*d.Precision, 100*cfg.Precision))
	}
	if change, ok := drift(rps, cfg.Precision); !ok {
		why = append(why, fmt.Sprintf("RPS drifts %+.1f %% across the batches", 100*change))
	}
	if d.P99Known = p99Known; p99Known {
		d.P99MS = mean(p99)
		why = append(why, p99Unsettled(p99, tolerance(cfg))...)
	}
	d.Steady = len(why) == 0
	d.Reason = "steady"
	if !d.Steady {
		d.Reason = strings.Join(why, "; ")
	}
}

// p99Unsettled lists why the batch p99s have not settled, if they have not.
func p99Unsettled(p99 []float64, tol float64) []string {
	var why []string
	m, half := confidence.MeanHalfWidth(p99)
	if !(half <= tol*m) {
		why = append(why, fmt.Sprintf("p99 ±%.1f %% is wider than ±%.0f %%", 100*half/m, 100*tol))
	}
	if change, ok := drift(p99, tol); !ok {
		why = append(why, fmt.Sprintf("p99 drifts %+.1f %% across the batches", 100*change))
	}
	for i := max(0, len(p99)-settleBatches); i < len(p99); i++ {
		if off := p99[i]/m - 1; math.Abs(off) > tol {
			why = append(why, fmt.Sprintf("p99 of batch %d is %+.0f %% off the mean", i+1, 100*off))
			break
		}
	}
	return why
}

// drift returns the relative change a least-squares line implies across
// xs, and false when that change is both significant and larger than tol.
func drift(xs []float64, tol float64) (float64, bool) {
	slope, significant := confidence.Trend(xs)
	change := slope * float64(len(xs)-1) / mean(xs)
	return change, !significant || math.Abs(change) <= tol
}

func tolerance(cfg Config) float64 {
	if cfg.P99Tolerance > 0 {
		return cfg.P99Tolerance
	}
	return DefaultP99Tolerance
}

func mean(xs []float64) float64 {
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// elapsed is the phase length the series covers.
func elapsed(series []results.Interval) float64 {
	if len(series) == 0 {
		return 0
	}
	return series[len(series)-1].T
}
