package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/sweep-tool/sweep/sweep"
)

// WriteTerminal prints the matrices of metric m for every CPU limit, the
// per-limit winners and the recommendation, as text tables. A metric the
// run did not record is bad input of {metric}.
func WriteTerminal(w io.Writer, rep *Report, m Metric) error {
	if err := WriteTerminalMatrices(w, rep, m); err != nil {
		return err
	}
	return WriteTerminalSummary(w, rep)
}

// WriteTerminalMatrices prints the matrix of m for every CPU limit.
func WriteTerminalMatrices(w io.Writer, rep *Report, m Metric) error {
	if !rep.HasMetric(m) {
		return sweep.BadInput("metric", "%q was not recorded in run %s", m, rep.RunID)
	}
	for _, cr := range rep.PerCPU {
		if err := terminalTable(w, matrixTable(rep, cr, m)); err != nil {
			return err
		}
	}
	return nil
}

// WriteTerminalSummary prints the per-CPU winners, the recommendation
// across CPU limits, the pool-sizing rule of thumb beside the best pools,
// the USL fit with its predictions and the noise note.
func WriteTerminalSummary(w io.Writer, rep *Report) error {
	tables := []table{perCPUTable(rep), profileTable(rep)}
	if t, ok := baselineTable(rep); ok {
		tables = append(tables, t)
	}
	if t, ok := poolRuleTable(rep); ok {
		tables = append(tables, t)
	}
	for _, t := range append(tables, uslTables(rep)...) {
		if err := terminalTable(w, t); err != nil {
			return err
		}
	}
	for _, p := range uslParas(rep) {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	if note := strategyNote(rep); note != "" {
		if _, err := fmt.Fprintln(w, note); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "Noise: %s.\n%s%s", rep.NoiseNote(), calibrationLines(rep), missingNote(rep))
	return err
}

func terminalTable(w io.Writer, t table) error {
	if _, err := fmt.Fprintln(w, t.Title); err != nil {
		return err
	}
	tab := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	header := make([]any, len(t.Header))
	for i, h := range t.Header {
		header[i] = h
	}
	tab.Header(header...)
	for _, row := range t.Rows {
		if err := tab.Append(row); err != nil {
			return fmt.Errorf("table %q: %w", t.Title, err)
		}
	}
	if err := tab.Render(); err != nil {
		return fmt.Errorf("table %q: %w", t.Title, err)
	}
	if t.Note != "" {
		if _, err := fmt.Fprintln(w, t.Note); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// missingNote says which cells are missing and why the report is partial.
func missingNote(rep *Report) string {
	s := ""
	if len(rep.Missing) > 0 {
		s += fmt.Sprintf("Partial run: %d of %d cells have no finished repetition: %v.\n",
			len(rep.Missing), len(rep.Cells), rep.Missing)
	}
	for _, c := range unanalysed(rep) {
		s += fmt.Sprintf("CPU %g has no matrix: no cell finished ok; %s: %s.\n", c.CPUs, c.ID, c.Ineligible)
	}
	for _, n := range rep.Nodes {
		s += fmt.Sprintf("Node %s (%s) measured %s.\n", n.Node, n.Hostname, strings.Join(n.Cells, ", "))
	}
	for _, w := range rep.Warnings {
		s += "Warning: " + w + "\n"
	}
	return s
}

// unanalysed lists the cells of CPU limits that have no analysis because
// none of their cells finished ok, so that failed limits are still shown.
func unanalysed(rep *Report) []*Cell {
	have := map[float64]bool{}
	for _, cr := range rep.PerCPU {
		have[cr.CPUs] = true
	}
	var out []*Cell
	for _, c := range rep.Cells {
		if !have[c.CPUs] {
			out = append(out, c)
		}
	}
	return out
}
