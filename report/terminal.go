package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/sweep-tool/sweep/sweep"
)

// WriteTerminal prints the headline (WriteHeadline), the matrices of
// metric m for every CPU limit and the summary, as sweep report does. A
// metric the run did not record is bad input of {metric}.
func WriteTerminal(w io.Writer, rep *Report, m Metric) error {
	if err := WriteHeadline(w, rep, rep.runDir); err != nil {
		return err
	}
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

// WriteTerminalSummary prints, after the matrices, what the headline
// (WriteHeadline, which has the measured best per CPU limit and the rule
// across CPU limits) does not: the gains against a baseline, the
// pool-sizing rule of thumb beside the best pools, the USL fit with its
// predictions and the noise note, every paragraph wrapped to
// TerminalWidth. The wider per-CPU tables are in report.md and
// report.html.
func WriteTerminalSummary(w io.Writer, rep *Report) error {
	var tables []table
	if t, ok := baselineTable(rep); ok {
		tables = append(tables, t)
	}
	if t, ok := poolRuleTable(rep); ok {
		tables = append(tables, t)
	}
	for _, t := range append(tables, uslTables(rep)...) {
		if err := summaryTable(w, t); err != nil {
			return err
		}
	}
	paras := append(uslParas(rep), strategyNote(rep), "Noise: "+rep.NoiseNote()+".")
	paras = append(paras, strings.Split(calibrationLines(rep)+missingNote(rep), "\n")...)
	for _, p := range paras {
		if strings.TrimSpace(p) == "" {
			continue
		}
		if _, err := fmt.Fprintln(w, sweep.Wrap(p, TerminalWidth, "  ")); err != nil {
			return err
		}
	}
	return nil
}

// terminalTable prints t with its title and note.
func terminalTable(w io.Writer, t table) error { return printTable(w, t, false) }

// summaryTable prints t as terminalTable does, but a table wider than
// TerminalWidth is left to report.md and report.html: its title says so.
func summaryTable(w io.Writer, t table) error { return printTable(w, t, true) }

func printTable(w io.Writer, t table, fit bool) error {
	var b strings.Builder
	tab := tablewriter.NewTable(&b,
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
	text := t.Title + "\n" + b.String()
	if n := widest(b.String()); fit && n > TerminalWidth {
		text = sweep.Wrap(fmt.Sprintf("%s: %d columns wide, in report.md and report.html", t.Title, n), TerminalWidth, "  ") + "\n"
	}
	if t.Note != "" {
		text += sweep.Wrap(t.Note, TerminalWidth, "  ") + "\n"
	}
	_, err := io.WriteString(w, text+"\n")
	return err
}

// missingNote says which cells are missing and why the report is partial.
func missingNote(rep *Report) string {
	s := ""
	if len(rep.Missing) > 0 {
		s += fmt.Sprintf("Partial run: %d of %d cells have no finished repetition: %v.\n",
			len(rep.Missing), len(rep.Cells), rep.Missing)
	}
	for _, cells := range unanalysed(rep) {
		s += fmt.Sprintf("CPU %g has no matrix: %s.\n", cells[0].CPUs, whyNoMatrix(cells))
	}
	for _, n := range rep.Nodes {
		s += fmt.Sprintf("Node %s (%s) measured %s.\n", n.Node, n.Hostname, strings.Join(n.Cells, ", "))
	}
	for _, w := range rep.Warnings {
		s += "Warning: " + w + "\n"
	}
	return s
}

// unanalysed lists, per CPU limit in order, the cells of the limits that
// have no analysis because none of their cells may win, so that failed
// limits are still shown.
func unanalysed(rep *Report) [][]*Cell {
	have := map[float64]bool{}
	for _, cr := range rep.PerCPU {
		have[cr.CPUs] = true
	}
	var out [][]*Cell
	for _, c := range rep.Cells {
		if have[c.CPUs] {
			continue
		}
		i := slices.IndexFunc(out, func(cells []*Cell) bool { return cells[0].CPUs == c.CPUs })
		if i < 0 {
			out = append(out, nil)
			i = len(out) - 1
		}
		out[i] = append(out[i], c)
	}
	return out
}
