package report

import (
	"fmt"
	"io"
	"path"
	"strings"
)

// WriteMarkdown writes report.md. Charts are linked from chartDir
// (relative to the report), where WriteFiles saves them.
func WriteMarkdown(w io.Writer, rep *Report, charts []Chart, chartDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Sweep report: run %s\n\n", rep.RunID)
	for _, p := range introParas(rep) {
		fmt.Fprintf(&b, "%s\n\n", p)
	}
	for _, s := range document(rep, charts) {
		fmt.Fprintf(&b, "## %s\n\n", s.Heading)
		for _, p := range s.Paras {
			fmt.Fprintf(&b, "- %s\n", p)
		}
		for _, l := range s.Links {
			fmt.Fprintf(&b, "- [%s](%s)\n", l.Text, l.Href)
		}
		if len(s.Paras)+len(s.Links) > 0 {
			b.WriteString("\n")
		}
		for _, t := range s.Tables {
			markdownTable(&b, t)
		}
		for _, c := range s.Charts {
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Title, path.Join(chartDir, c.File))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownTable(b *strings.Builder, t table) {
	fmt.Fprintf(b, "### %s\n\n", t.Title)
	b.WriteString("| " + strings.Join(escapeCells(t.Header), " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(t.Header)) + "\n")
	for _, row := range t.Rows {
		b.WriteString("| " + strings.Join(escapeCells(row), " | ") + " |\n")
	}
	b.WriteString("\n")
	if t.Note != "" {
		fmt.Fprintf(b, "%s\n\n", t.Note)
	}
}

func escapeCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		c = strings.ReplaceAll(c, "|", `\|`)
		c = strings.ReplaceAll(c, "*", `\*`)
		out[i] = strings.ReplaceAll(c, "~", `\~`)
	}
	return out
}
