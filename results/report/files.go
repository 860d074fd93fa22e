package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ChartDir is the folder of the run directory that holds the chart SVGs.
const ChartDir = "charts"

// Files lists what WriteFiles writes into the run directory, besides the
// charts.
var Files = []string{"report.md", "report.html", "results.csv", "results.json"}

// WriteFiles writes report.md, report.html, results.csv, results.json and
// charts/*.svg into dir (normally the run directory). Each file is
// written to a temporary name and renamed, so a reader never sees half a
// file.
func WriteFiles(dir string, rep *Report) error {
	charts, err := Charts(rep)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, ChartDir), 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	for _, c := range charts {
		if err := writeAtomic(filepath.Join(dir, ChartDir, c.File), bytes.NewReader(c.SVG).WriteTo); err != nil {
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
		render := writers[name]
		err := writeAtomic(filepath.Join(dir, name), func(w io.Writer) (int64, error) { return 0, render(w) })
		if err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, write func(io.Writer) (int64, error)) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
