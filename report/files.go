package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sweep-tool/sweep/results"
)

// ChartDir is the folder of the run directory that holds the chart SVGs.
const ChartDir = "charts"

// Files lists what WriteFiles writes into the run directory, besides the
// charts.
var Files = []string{"report.md", "report.html", "results.csv", "results.json"}

// WriteFiles writes report.md, report.html, results.csv, results.json and
// charts/*.svg into dir (normally the run directory), each atomically so a
// reader never sees half a file.
func WriteFiles(dir string, rep *Report) error {
	rep = rep.from(dir)
	charts, err := Charts(rep)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ChartDir), 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	for _, c := range charts {
		if err := results.WriteFileAtomic(filepath.Join(dir, ChartDir, c.File), c.SVG); err != nil {
			return err
		}
	}
	writers := map[string]func(io.Writer) error{
		"report.md":    func(w io.Writer) error { return WriteMarkdown(w, rep, charts, ChartDir) },
		"report.html":  func(w io.Writer) error { return WriteHTML(w, rep, charts) },
		"results.csv":  func(w io.Writer) error { return WriteCSV(w, rep) },
		"results.json": func(w io.Writer) error { return WriteResultsJSON(w, rep) },
	}
	for _, name := range Files {
		var buf bytes.Buffer
		if err := writers[name](&buf); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, name), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
