package steady

import (
	"fmt"
	"math"

	"github.com/sweep-tool/sweep/results"
)

// WarmupDecision is the rule's verdict on a warm-up as of its newest second.
type WarmupDecision struct {
	// Stop says the warm-up should end now: Settled, or WarmupMax reached.
	Stop    bool
	Settled bool
	// UsedS is the warm-up's length so far.
	UsedS float64
	// Change is the last window's mean RPS relative to the one before
	// (NaN before two windows exist).
	Change float64
	Reason string
}

// CheckWarmup decides on a warm-up whose seconds so far are series. Call it
// after every interval; end the warm-up when Stop is set.
func CheckWarmup(series []results.Interval, cfg Config) WarmupDecision {
	d := WarmupDecision{UsedS: elapsed(series), Change: math.NaN(), Reason: "rule off (precision 0)"}
	if cfg.Precision > 0 {
		d.assess(series, cfg.Precision)
	}
	d.Stop = d.Settled || d.UsedS >= cfg.WarmupMax.Seconds()-slackS
	return d
}

// ScanWarmup returns the decision the online loop would have taken on a
// whole recorded warm-up (see Scan).
func ScanWarmup(series []results.Interval, cfg Config) WarmupDecision {
	if d := CheckWarmup(nil, cfg); d.Stop {
		return d // no warm-up asked for
	}
	for k := 1; k < len(series); k++ {
		if d := CheckWarmup(series[:k], cfg); d.Stop {
			return d
		}
	}
	return CheckWarmup(series, cfg)
}

func (d *WarmupDecision) assess(series []results.Interval, precision float64) {
	if len(series) < 2*warmupWindowS {
		d.Reason = fmt.Sprintf("%d of the %d seconds two windows need", len(series), 2*warmupWindowS)
		return
	}
	last := perSecondRPS(series, len(series)-2*warmupWindowS)
	before, recent := mean(last[:warmupWindowS]), mean(last[warmupWindowS:])
	if before <= 0 {
		d.Reason = "no requests in the window before"
		return
	}
	d.Change = recent/before - 1
	change, flat := drift(last, precision)
	switch {
	case math.Abs(d.Change) > precision:
		d.Reason = fmt.Sprintf("RPS moved %+.1f %% from one %d s window to the next", 100*d.Change, warmupWindowS)
	case !flat:
		d.Reason = fmt.Sprintf("RPS trends %+.1f %% across the last %d s", 100*change, 2*warmupWindowS)
	default:
		d.Settled, d.Reason = true, "settled"
	}
}

// perSecondRPS returns the RPS of each interval from index from on.
func perSecondRPS(series []results.Interval, from int) []float64 {
	out := make([]float64, 0, len(series)-from)
	for i := from; i < len(series); i++ {
		r := 0.0
		if dt := series[i].T - prevT(series, i); dt > 0 {
			r = float64(series[i].Requests) / dt
		}
		out = append(out, r)
	}
	return out
}
