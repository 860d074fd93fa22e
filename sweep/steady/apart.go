package steady

import (
	"fmt"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
)

// Span is an interval of a figure: Lo to Hi. The zero Span is unknown.
type Span struct{ Lo, Hi float64 }

// Known says the span holds a figure.
func (s Span) Known() bool { return s.Hi > 0 }

// apart says two spans do not overlap.
func (s Span) apart(o Span) bool { return s.Hi < o.Lo || o.Hi < s.Lo }

// Around is v × (1 ± rel): a figure measured once with a relative
// band of ±rel.
func Around(v, rel float64) Span { return Span{v * (1 - rel), v * (1 + rel)} }

// Rival is another cell a measured phase is ranked against: the 95 %
// intervals of its RPS and p99 as known so far (from its own measured
// phase, or the screen that let it through). A phase that is apart from
// every rival can be ranked against them and may stop (Config.Rivals).
type Rival struct {
	ID  string
	RPS Span
	P99 Span
}

// Intervals returns the 95 % intervals of a phase's mean RPS and p99 from
// its batch means (the batches Check uses), false before the phase holds
// the batches an interval needs; p99's span is unknown when the driver
// reported none.
func Intervals(series []results.Interval) (rps, p99 Span, ok bool) {
	bs := batchesOf(series, batchSeconds(len(series)))
	if len(bs) < minBatches {
		return Span{}, Span{}, false
	}
	r, p, known := batchFigures(bs)
	rps = spanOf(r)
	if known {
		p99 = spanOf(p)
	}
	return rps, p99, rps.Known()
}

func spanOf(xs []float64) Span {
	m, h := confidence.MeanHalfWidth(xs)
	return Span{m - h, m + h}
}

// apartFrom marks d steady when the phase's intervals are apart from
// every rival's, RPS and p99 both (p99 where both sides know it): the
// phase can then be ranked against each of them, whatever it measured
// beyond.
func (d *Decision) apartFrom(series []results.Interval, rivals []Rival) {
	rps, p99, ok := Intervals(series)
	if !ok {
		d.Reason = join(d.Reason, fmt.Sprintf("too short for an interval to rank against %d rivals", len(rivals)))
		return
	}
	if d.Batches == 0 { // the precision rule did not assess it
		bs := batchesOf(series, batchSeconds(len(series)))
		d.Batches, d.BatchS = len(bs), bs[0].seconds
		d.RPS, d.RPSHalfWidth = (rps.Lo+rps.Hi)/2, (rps.Hi-rps.Lo)/2
		d.Precision = d.RPSHalfWidth / d.RPS
	}
	for _, r := range rivals {
		if !rps.apart(r.RPS) {
			d.Reason = join(d.Reason, fmt.Sprintf("RPS %.0f–%.0f overlaps %s's %.0f–%.0f", rps.Lo, rps.Hi, r.ID, r.RPS.Lo, r.RPS.Hi))
			return
		}
		if p99.Known() && r.P99.Known() && !p99.apart(r.P99) {
			d.Reason = join(d.Reason, fmt.Sprintf("p99 %.1f–%.1f ms overlaps %s's %.1f–%.1f ms", p99.Lo, p99.Hi, r.ID, r.P99.Lo, r.P99.Hi))
			return
		}
	}
	d.Steady, d.Apart = true, true
	d.Reason = fmt.Sprintf("apart from its %d rivals", len(rivals))
}

func join(a, b string) string {
	if a == "" || a == ruleOff {
		return b
	}
	return a + "; " + b
}
