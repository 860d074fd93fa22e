package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// table is a rendered-agnostic grid of text: the terminal, Markdown and
// HTML renderers all draw the same tables.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	Note   string
}

// Marks used in matrix cells.
const (
	markBest  = "*"
	markTie   = "~"
	markError = "!"
)

// matrixTable is one CPU limit's matrix of m: rows web threads, columns
// pool multipliers.
func matrixTable(rep *Report, cr *CPUReport, m Metric) table {
	title := m.Title()
	t := matrixFrame(cr, fmt.Sprintf("CPU %g: %s%s", cr.CPUs, title, loadNote(cr)))
	t.Note = fmt.Sprintf("cells show value [pool size]; %s best, %s equivalent to the best, "+
		"%s error rate above %g %% (never wins)", markBest, markTie, markError, 100*rep.Options.ErrorBound)
	if m == MetricLimit {
		t.Title = fmt.Sprintf("CPU %g: %s (%s)", cr.CPUs, title, rep.limitModel())
		t.Note = limitNote
	}
	if legend := insightLegend(rep); legend != "" {
		t.Note += "; " + legend
	}
	for _, wm := range cr.WebMults {
		row := []string{fmt.Sprintf("%s (%g x CPU)", webThreads(cr, wm), wm)}
		for _, dm := range cr.DBMults {
			row = append(row, cellText(cr, cr.At(wm, dm), m))
		}
		t.Rows = append(t.Rows, row)
	}
	if b := cr.Baseline; b != nil {
		row := make([]string, len(t.Header))
		row[0] = fmt.Sprintf("baseline: %d web threads", b.WebThreads)
		row[1] = cellText(cr, b, m)
		t.Rows = append(t.Rows, row)
	}
	return t
}

func webThreads(cr *CPUReport, wm float64) string {
	for _, dm := range cr.DBMults {
		if c := cr.At(wm, dm); c != nil {
			return fmt.Sprint(c.WebThreads)
		}
	}
	return "?"
}

func cellText(cr *CPUReport, c *Cell, m Metric) string {
	switch {
	case c == nil:
		return ""
	case c.Status == statusMissing:
		return "missing"
	case c.Status == statusScreened:
		return screenedText(c, m)
	case c.Status == results.StatusFailed:
		return "FAILED: " + shorten(c.Reason, 32)
	case c.Status == results.StatusSkipped:
		return "SKIPPED: " + shorten(c.Reason, 32)
	}
	e := c.value(m)
	if e == nil {
		return fmt.Sprintf("- [%d]", c.DBPool)
	}
	if m == MetricLimit {
		s := limitText(c.SafeLimit) + fmt.Sprintf(" [%d]", c.DBPool) + marks(cr, c, m)
		if b := c.SafeLimit.Bottleneck; b != "" {
			s += " " + b
		}
		return s
	}
	s := formatEstimate(*e, m) + fmt.Sprintf(" [%d]", c.DBPool)
	return s + marks(cr, c, m) + insightMarks(c) + driftMark(c)
}

// driftMark marks a cell measured while the run's control drifted.
func driftMark(c *Cell) string {
	if c.Drifted {
		return " (drifted)"
	}
	return ""
}

func marks(cr *CPUReport, c *Cell, m Metric) string {
	if !c.eligible() {
		return " " + markError
	}
	var p Pick
	switch m {
	case MetricRPS:
		p = cr.BestRPS
	case MetricP99:
		p = cr.BestP99
	case MetricLimit:
		p = cr.BestLimit
	default:
		return ""
	}
	if p.Cell == c {
		return " " + markBest
	}
	for _, t := range p.Ties {
		if t == c {
			return " " + markTie
		}
	}
	return ""
}

// formatEstimate prints the mean, and ± the interval's half width when it
// is a confidence interval.
func formatEstimate(e Estimate, m Metric) string {
	verb := "%.0f"
	if m == MetricP99 || m == MetricErrors {
		verb = "%.2f"
	}
	s := fmt.Sprintf(verb, e.Mean)
	if !e.Assumed && e.N >= 2 {
		s += " ±" + fmt.Sprintf(verb, (e.Hi-e.Lo)/2)
	}
	return s
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// bottleneckTable is one CPU limit's matrix of bottleneck labels, or
// false when no cell has one.
func bottleneckTable(cr *CPUReport) (table, bool) {
	t := matrixFrame(cr, fmt.Sprintf("CPU %g: bottleneck", cr.CPUs))
	any := false
	for _, wm := range cr.WebMults {
		row := []string{fmt.Sprintf("%s (%g x CPU)", webThreads(cr, wm), wm)}
		for _, dm := range cr.DBMults {
			label := ""
			if c := cr.At(wm, dm); c != nil {
				label = c.Bottleneck
			}
			any = any || label != ""
			row = append(row, label)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, any
}

// loadNote names the load model the limit's cells were measured under, so
// a matrix says whether its load was fixed, per web thread or open.
func loadNote(cr *CPUReport) string {
	var loads []string
	vuPerWeb := false
	for _, c := range cr.Cells {
		if c.Load != "" && !slices.Contains(loads, c.Load) {
			loads = append(loads, c.Load)
		}
		vuPerWeb = vuPerWeb || len(c.reps) > 0 && c.reps[0].Load.VUsPerWeb > 0
	}
	switch {
	case len(loads) == 0:
		return ""
	case vuPerWeb:
		return " (load: closed, VUs proportional to web threads)"
	case len(loads) == 1:
		return " (load: " + loads[0] + ")"
	case len(loads) > 3:
		return fmt.Sprintf(" (load: %d different models or levels; see results.csv)", len(loads))
	}
	return " (load: " + strings.Join(loads, "; ") + ")"
}

func matrixFrame(cr *CPUReport, title string) table {
	t := table{Title: title, Header: []string{"web threads \\ pool"}}
	for _, dm := range cr.DBMults {
		t.Header = append(t.Header, fmt.Sprintf("pool %g x web", dm))
	}
	return t
}
