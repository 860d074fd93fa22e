package limit

import (
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/sweep-tool/sweep/results"
)

// row is one line of the study's table: a label and a cell per level.
type row struct {
	label string
	cell  func(Level) string
}

var tableRows = []row{
	{"elapsed time (s)", func(l Level) string { return fmt.Sprintf("%.1f", l.ElapsedS) }},
	{"requests", func(l Level) string { return strconv.FormatInt(l.Requests, 10) }},
	{"successes (%)", func(l Level) string { return fmt.Sprintf("%.2f", l.SuccessRate*100) }},
	latencyRow("min", func(x results.Latency) float64 { return x.Min }),
	latencyRow("avg", func(x results.Latency) float64 { return x.Avg }),
	latencyRow("p50", func(x results.Latency) float64 { return x.P50 }),
	latencyRow("p75", func(x results.Latency) float64 { return x.P75 }),
	latencyRow("p90", func(x results.Latency) float64 { return x.P90 }),
	latencyRow("p99", func(x results.Latency) float64 { return x.P99 }),
	latencyRow("max", func(x results.Latency) float64 { return x.Max }),
	{"DB CPU (%)", func(l Level) string { return optional("%.1f", l.DBCPUPct) }},
	{"DB sessions (mean / peak)", sessions},
	{"target CPU (% of limit)", func(l Level) string { return optional("%.0f", l.TargetCPUPct) }},
	{"SLO", func(l Level) string { return map[bool]string{true: "ok", false: "fails"}[l.SLOOK] }},
}

func latencyRow(name string, get func(results.Latency) float64) row {
	return row{name + " latency (ms)", func(l Level) string { return fmt.Sprintf("%.2f", get(l.LatencyMS)) }}
}

func optional(format string, v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

func sessions(l Level) string {
	if l.DBSessionsMean == nil || l.DBSessionsPeak == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f / %d", *l.DBSessionsMean, *l.DBSessionsPeak)
}

// header is the top-left cell: what a level counts.
func header(m Model) string {
	if m == ModelRate {
		return "iterations/s"
	}
	return "VUs"
}

// WriteTable prints the study's table (one column per level, by level),
// then the safe limit, the bottleneck and why each failing level failed.
func WriteTable(w io.Writer, r Result) error {
	head := []any{header(r.Config.Model)}
	for _, l := range r.Levels {
		head = append(head, strconv.Itoa(l.Level))
	}
	rows := make([][]string, 0, len(tableRows))
	for _, rw := range tableRows {
		cells := []string{rw.label}
		for _, l := range r.Levels {
			cells = append(cells, rw.cell(l))
		}
		rows = append(rows, cells)
	}
	if err := render(w, "limit table", head, rows); err != nil {
		return err
	}
	_, err := io.WriteString(w, summary(r))
	return err
}

// render prints a table of head and rows; what names it in errors.
func render(w io.Writer, what string, head []any, rows [][]string) error {
	tab := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNone))
	tab.Header(head...)
	for _, cells := range rows {
		if err := tab.Append(cells); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	if err := tab.Render(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// summary is the text under the table.
func summary(r Result) string {
	s := "safe limit: none\n"
	if r.SafeLimit != nil {
		s = fmt.Sprintf("safe limit: %d\n", r.SafeLimit.Level)
	}
	s += fmt.Sprintf("(%s, SLO %s; %s)\n", header(r.Config.Model), r.SLO, r.Stopped)
	if b := r.Bottleneck; b != nil {
		s += fmt.Sprintf("bottleneck at %d: %s (%s)\n", b.Level, b.Name, b.Evidence)
	}
	for _, l := range r.Levels {
		if !l.SLOOK {
			s += fmt.Sprintf("%d fails: %s\n", l.Level, l.Why)
		}
	}
	return s
}
