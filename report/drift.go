package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
)

// Drift is a trend of the run's control cell beyond its noise: the host
// measured the same cell differently as the run went on (a neighbour, a
// backup, thermal or frequency drift), so cells measured in the drifted
// stretch are not comparable with the others as they stand.
type Drift struct {
	// Control is the control cell; Metrics the figures that drifted.
	Control string        `json:"control"`
	Metrics []DriftMetric `json:"metrics"`
	// From and To bound the drifted stretch: from the start of the last
	// control still at the run's start level to the end of the last
	// control off it.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Cells are the cells with a repetition measured in that stretch.
	Cells []string `json:"cells"`
}

// DriftMetric is one figure's trend over the controls.
type DriftMetric struct {
	Metric Metric `json:"metric"`
	// Kind is trend (a slope over the run) or step (a level that moved).
	Kind string `json:"kind"`
	// Change is the fitted change from the first control to the last
	// (a trend) or from the first stretch's level to the second's (a
	// step), relative to the controls' mean; Band the noise band of the
	// scatter it is beyond (see drifted).
	Change float64 `json:"change"`
	Band   float64 `json:"band"`
}

// driftLevel is the false-alarm rate of each of drifted's two tests
// (trend, step) on one figure, so that a steady figure is flagged in at
// most 5 % of runs: at 5 % each it was flagged in 7–10 % with 4 to 8
// controls (TestDriftFalseAlarms), and a run, RPS and p99 tested apart,
// in 15–18 %. Halving it again (5 % a run) missed a 57 % step after a
// first control 20 % off (TestRunDriftFromAnOffFirstControl) and a hog to
// 15 % at 20 % noise one run in four; at this level a run on a steady
// host is flagged in about 9 %, each figure in at most 5 %.
const driftLevel = confidence.Level / 2

// drifted tests one figure's controls ys, in their order, for drift: a
// trend (confidence.TrendAt: the least-squares slope significant at
// driftLevel against the scatter of the points around it) or a step
// (confidence.ShiftAt: the level of a later stretch apart from an earlier
// one's at driftLevel, over every split), whose change over the run exceeds
// the band of the scatter it was tested against (bandOf the scatter's
// coefficient of variation): a significant but small change over many
// controls is no drift. The trend is tried first. start is the level the
// figure drifted from: the trend's fitted value at the first control, or
// the mean of the stretch before the step. ok is false when the figure
// did not drift.
func drifted(ys []float64) (dm DriftMetric, start float64, ok bool) {
	n := len(ys)
	mean := stat.Mean(ys, nil)
	if n < MinControls || mean <= 0 {
		return DriftMetric{}, 0, false
	}
	if slope, significant := confidence.TrendAt(ys, driftLevel); significant {
		xMean, sse := float64(n-1)/2, 0.0
		for i, y := range ys {
			r := y - (mean + slope*(float64(i)-xMean))
			sse += r * r
		}
		dm := DriftMetric{Kind: "trend", Change: slope * float64(n-1) / mean, Band: bandOf(math.Sqrt(sse/float64(n-2)) / mean)}
		if math.Abs(dm.Change) > dm.Band {
			return dm, mean - slope*xMean, true
		}
	}
	if at, diff, sd, significant := confidence.ShiftAt(ys, driftLevel); significant {
		dm := DriftMetric{Kind: "step", Change: diff / mean, Band: bandOf(sd / mean)}
		return dm, stat.Mean(ys[:at], nil), math.Abs(dm.Change) > dm.Band
	}
	return DriftMetric{}, 0, false
}

// RunDrift tests the run's control cell for drift in RPS and p99 and,
// when either drifted, finds the stretch the drift covers: the controls
// that lie further from the level the figure drifted from (see drifted)
// than half the fitted change and than the band, the stretch from the
// control before the first of them to the end of the last, and the cells
// measured in it. Nil without drift or with fewer than MinControls ok
// controls. The level is the fit's, not the first control's: a first
// control off its stretch (the first on a fresh database, a busy second)
// would otherwise lie as far from the drifted level as from its own and
// hide a drift the test found.
func RunDrift(run *results.Run) *Drift {
	id, series := controlSeries(run)
	var ok []results.Control
	for _, c := range series {
		if c.Status == results.StatusOK {
			ok = append(ok, c)
		}
	}
	if len(ok) < MinControls {
		return nil
	}
	rps, p99 := okFigures(ok)
	d := &Drift{Control: id}
	off := make([]bool, len(ok))
	for _, f := range []struct {
		m  Metric
		ys []float64
	}{{MetricRPS, rps}, {MetricP99, p99}} {
		dm, start, yes := drifted(f.ys)
		if !yes {
			continue
		}
		dm.Metric = f.m
		d.Metrics = append(d.Metrics, dm)
		mean := stat.Mean(f.ys, nil)
		limit := mean * max(dm.Band, math.Abs(dm.Change)/2)
		for i, y := range f.ys {
			off[i] = off[i] || math.Abs(y-start) > limit
		}
	}
	first, last := slices.Index(off, true), len(off)-1-slices.Index(reversed(off), true)
	if len(d.Metrics) == 0 || first < 0 {
		return nil
	}
	d.From, d.To = ok[max(0, first-1)].StartedAt, ok[last].FinishedAt
	d.Cells = cellsBetween(run, d.From, d.To)
	return d
}

func reversed(xs []bool) []bool {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

// cellsBetween lists the cells with a finished repetition whose measured
// span overlaps [from, to], in plan order.
func cellsBetween(run *results.Run, from, to time.Time) []string {
	var out []string
	for _, rc := range run.Cells {
		for _, rep := range rc.Reps {
			if rep.StartedAt.Before(to) && rep.FinishedAt.After(from) {
				out = append(out, rc.ID)
				break
			}
		}
	}
	return out
}

// Sentence says what drifted, when, and which cells it marks.
func (d *Drift) Sentence() string {
	var ms []string
	for _, m := range d.Metrics {
		ms = append(ms, fmt.Sprintf("%s %+.0f %% (a %s, beyond the %.1f %% band of the scatter around it)",
			metricName(m.Metric), 100*m.Change, m.Kind, 100*m.Band))
	}
	cells := "no cell"
	if len(d.Cells) > 0 {
		cells = strings.Join(d.Cells, ", ")
	}
	return fmt.Sprintf("the host drifted: over the run the control cell %s measured %s; "+
		"from %s the control lay off its start, so the cells measured then are marked "+
		"drifted: %s (sweep rerun --drifted RUN_DIR measures them again)",
		d.Control, strings.Join(ms, " and "), clockSpan(d.From, d.To), cells)
}

// clockSpan renders the stretch as clock times, the date once.
func clockSpan(from, to time.Time) string {
	end := to.Format("15:04:05")
	if y1, m1, d1 := from.Date(); !(to.Year() == y1 && to.Month() == m1 && to.Day() == d1) {
		end = to.Format("2006-01-02 15:04:05")
	}
	return fmt.Sprintf("%s to %s %s", from.Format("2006-01-02 15:04:05"), end, from.Format("MST"))
}

// metricName is how a sentence names RPS and p99.
func metricName(m Metric) string {
	if m == MetricRPS {
		return "RPS"
	}
	return string(m)
}
