package report

// The baseline: each profile's pick at a CPU limit measured against the
// cell of the user's current settings at that limit (run with a
// baseline), under the report's noise rules.

import (
	"fmt"
	"math"
	"strings"
)

// Change is a figure of the pick relative to the baseline's, in percent:
// 100 × (pick / baseline − 1), with the interval the two figures' noise
// intervals give (see change). Hi is nil when the baseline's interval
// reaches zero, so the ratio has no upper bound.
type Change struct {
	Pct float64  `json:"pct"`
	Lo  float64  `json:"lo"`
	Hi  *float64 `json:"hi"`
}

// Gain is one profile's pick at one CPU limit against the baseline cell
// of that limit.
type Gain struct {
	Profile string  `json:"profile"`
	CPUs    float64 `json:"cpus"`
	// Cell is the pick: the profile's multipliers at this limit, or, when
	// the profile found no pair, this limit's own best for its objective
	// (FromLimit is then set).
	Cell      string `json:"cell"`
	FromLimit bool   `json:"from_limit,omitempty"`
	Baseline  string `json:"baseline_cell"`
	RPS       Change `json:"rps"`
	P99       Change `json:"p99_ms"`
	// Better is true when the pick beats the baseline beyond noise on the
	// profile's objective: more RPS (throughput), lower P99 (latency), or
	// one of them without the other getting worse (balanced).
	Better bool `json:"better"`
	// Text is the sentence the report prints.
	Text string `json:"text"`
	// Twin is set when the grid measured the baseline's settings too and
	// the two measurements differ beyond the noise rules (see twinNote).
	Twin string `json:"twin,omitempty"`
}

// NotBetter is what a gain says when the pick does not beat the baseline
// beyond noise.
const NotBetter = "not better than the baseline beyond noise"

// change is b relative to a in percent. Its interval runs from the
// lowest ratio the two intervals allow to the highest (b.Lo / a.Hi to
// b.Hi / a.Lo), so it excludes 0 exactly when the intervals do not
// overlap: when the report would not call the two figures equivalent.
func change(b, a Estimate) Change {
	c := Change{Pct: 100 * (b.Mean/a.Mean - 1), Lo: 100 * (b.Lo/a.Hi - 1)}
	if a.Lo > 0 {
		hi := 100 * (b.Hi/a.Lo - 1)
		c.Hi = &hi
	}
	return c
}

// above reports whether the change is beyond noise upwards, below
// downwards.
func (c Change) above() bool { return c.Lo > 0 }
func (c Change) below() bool { return c.Hi != nil && *c.Hi < 0 }

// format writes "+18 % RPS [12, 24]".
func (c Change) format(what string) string {
	hi := "∞"
	if c.Hi != nil {
		hi = minus(fmt.Sprintf("%.0f", *c.Hi))
	}
	return fmt.Sprintf("%s %% %s [%s, %s]", signed(c.Pct), what, minus(fmt.Sprintf("%.0f", c.Lo)), hi)
}

// minus writes a negative number with a true minus sign, and -0 as 0.
func minus(s string) string {
	if s == "-0" {
		return "0"
	}
	return strings.Replace(s, "-", "−", 1)
}

// signed writes a rounded percentage with its sign, a true minus for
// negative values.
func signed(pct float64) string {
	s := fmt.Sprintf("%+.0f", pct)
	if s == "-0" || s == "+0" {
		return "±0"
	}
	return minus(s)
}

// gains compares each profile's pick with the baseline at every CPU limit
// that has an ok baseline cell.
func gains(per []*CPUReport, profiles []Profile) []Gain {
	var out []Gain
	for _, cr := range per {
		base := cr.Baseline
		if base == nil || !base.eligible() {
			continue
		}
		twin := twinNote(cr)
		for _, p := range profiles {
			pick, fromLimit := profilePick(cr, p)
			if pick == nil {
				continue
			}
			g := gain(p.Key, cr.CPUs, pick, base, fromLimit)
			g.Twin = twin
			out = append(out, g)
		}
	}
	return out
}

// twinNote says when a grid cell of the limit has the baseline's settings
// and the report would not call the two equivalent: the same settings,
// measured twice, differ beyond the noise rules, so every interval of
// this limit (the gains' too) is narrower than the real noise. Empty
// otherwise.
func twinNote(cr *CPUReport) string {
	b := cr.Baseline
	for _, c := range cr.Cells {
		if c.WebThreads != b.WebThreads || c.DBPool != b.DBPool || !c.eligible() || sameBoth(c, b) {
			continue
		}
		return fmt.Sprintf("%s has the baseline's settings and measured %.0f RPS, %.2f ms p99 against the baseline's "+
			"%.0f RPS, %.2f ms: the same settings differ beyond the noise rules, so the intervals at this CPU limit "+
			"understate the noise; repeat the cells before trusting the gains", c.ID, c.RPS.Mean, c.P99.Mean,
			b.RPS.Mean, b.P99.Mean)
	}
	return ""
}

// profilePick is the profile's cell at the limit, or the limit's own
// pick for the profile's objective (Pick.Chosen) when the profile found
// no pair.
func profilePick(cr *CPUReport, p Profile) (*Cell, bool) {
	if p.Found {
		if c := cr.At(p.WebMult, p.DBMult); c != nil && c.eligible() {
			return c, false
		}
		return nil, false
	}
	return cr.PickFor(p.Key).Chosen(), true
}

func gain(profile string, cpus float64, pick, base *Cell, fromLimit bool) Gain {
	g := Gain{Profile: profile, CPUs: cpus, Cell: pick.ID, FromLimit: fromLimit, Baseline: base.ID,
		RPS: change(pick.RPS, base.RPS), P99: change(pick.P99, base.P99)}
	switch profile {
	case "throughput":
		g.Better = g.RPS.above()
	case "latency":
		g.Better = g.P99.below()
	default:
		g.Better = (g.RPS.above() && !g.P99.above()) || (g.P99.below() && !g.RPS.below())
	}
	g.Text = g.RPS.format("RPS") + ", " + g.P99.format("p99") + " vs baseline"
	if !g.Better {
		g.Text += "; " + NotBetter
	}
	if math.IsNaN(g.RPS.Pct) || math.IsNaN(g.P99.Pct) {
		g.Better, g.Text = false, "no figures to compare"
	}
	return g
}

// baselineTable is every gain, one row per CPU limit and profile; false
// without a baseline.
func baselineTable(rep *Report) (table, bool) {
	t := table{
		Title:  "Against the baseline (your current settings)",
		Header: []string{"CPU", "profile", "pick", "baseline", "gain"},
		Note: "Gain is 100 × (pick / baseline − 1); the interval runs from the pick's low over the baseline's high " +
			"to the pick's high over the baseline's low, using the intervals the report judges ties by, so it " +
			"excludes 0 exactly when the two figures are not equivalent. A pick marked (limit) is that CPU " +
			"limit's own best because the profile found no pair.",
	}
	twins := map[string]bool{}
	for _, g := range rep.Gains {
		if g.Twin != "" && !twins[g.Twin] {
			twins[g.Twin] = true
			t.Note += " Beware: " + g.Twin + "."
		}
		pick := g.Cell
		if g.FromLimit {
			pick += " (limit)"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%g", g.CPUs), g.Profile, pick, g.Baseline, g.Text})
	}
	return t, len(t.Rows) > 0
}
