package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// StrategyHalving is results.Run.Strategy of a run measured by successive
// halving (strategy/halving): its recommendation rests on the final round's
// full-length measurements, and the cells screened out earlier are shown
// apart with their short-run figures.
const StrategyHalving = "halving"

// statusScreened is a planned cell of a halving run measured only in a
// screening round: it never wins, and its short-run figures are shown
// apart from the full-length ones.
const statusScreened results.Status = "screened"

// Screening is a screened cell's last short-run measurement (its length
// to a tenth of a second).
type Screening struct {
	Round     int            `json:"round"`
	Status    results.Status `json:"status"`
	Reason    string         `json:"reason,omitempty"`
	DurationS float64        `json:"duration_s"`
	RPS       float64        `json:"rps"`
	P99MS     float64        `json:"p99_ms"`
	ErrorRate float64        `json:"error_rate"`
}

// screening marks c screened when it has no full-length repetition but a
// screening-round record, and keeps the last one's figures.
func screening(c *Cell, rc results.RunCell) {
	if c.Status != statusMissing || len(rc.Screens) == 0 {
		return
	}
	s := rc.Screens[len(rc.Screens)-1]
	c.Status = statusScreened
	c.Screened = &Screening{Round: s.Round, Status: s.Status, Reason: s.Reason, DurationS: math.Round(10*s.DurationS) / 10,
		RPS: s.RPS, P99MS: s.LatencyMS.P99, ErrorRate: s.ErrorRate}
}

// screenedText is a screened cell's matrix entry: its short-run value in
// parentheses, marked with the round it was screened out after.
func screenedText(c *Cell, m Metric) string {
	s := c.Screened
	var v string
	switch {
	case s.Status != results.StatusOK:
		v = "failed"
	case m == MetricRPS:
		v = fmt.Sprintf("%.0f", s.RPS)
	case m == MetricP99:
		v = fmt.Sprintf("%.2f", s.P99MS)
	case m == MetricErrors:
		v = fmt.Sprintf("%.2f", 100*s.ErrorRate)
	default:
		return fmt.Sprintf("(%s%d) [%d]", strings.TrimPrefix(screenedMark, ", "), s.Round, c.DBPool)
	}
	return fmt.Sprintf("(%s, %gs%s%d) [%d]", v, s.DurationS, screenedMark, s.Round, c.DBPool)
}

// screenedMark is in every screened cell's matrix entry, so report.html
// can grey the entry.
const screenedMark = ", screened "

// isScreenedText reports whether a table entry is a screened cell's.
func isScreenedText(s string) bool {
	return strings.HasPrefix(s, "(") && strings.Contains(s, strings.TrimPrefix(screenedMark, ", "))
}

// strategyNote says which strategy produced the recommendation; "" for the
// grid, whose reports stay as they were.
func strategyNote(rep *Report) string {
	if rep.Strategy != StrategyHalving {
		return ""
	}
	if rep.Noise.Pairing != nil {
		return "Strategy: successive halving on the interleaved rounds. After rounds 3, 6, 12, … a target worse than " +
			"every profile's pick at its CPU limit (paired round by round, at 95 %) was stopped; its " +
			"figures are its slices of the rounds it ran, every slice measured counted, so its intervals are wider " +
			"than the finalists'. Each round is read against the median of the targets still in play at the end; a round the host " +
			"stepped inside is cut there, each piece read against its slices less their cells' levels."
	}
	note := fmt.Sprintf("Strategy: successive halving. The recommendation rests on the %d cells measured in full "+
		"in the final round; %d cells were measured only in short screening rounds and are shown apart in the "+
		"matrices as (value, seconds measured, screened after round N): they never win. Balanced is scaled over "+
		"every cell of round 1, each at its best figures: a finalist's final ones, a screened cell's screen",
		len(rep.Cells)-len(rep.Screened)-len(rep.Missing), len(rep.Screened))
	if n := rep.screenNoise; n != (relNoise{}) {
		return note + fmt.Sprintf(" pulled in by round 1's noise as the finals show it (RPS %.1f %%, P99 %.1f %%).",
			100*n.rps, 100*n.p99)
	}
	return note + " as measured (too few finalists to show round 1's noise)."
}
