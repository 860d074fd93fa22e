package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Print is how WriteRun reports a run besides its files: the matrices (or
// the JSON recommendation) to Out, and notes for a person.
type Print struct {
	// Metrics are the matrices printed, in order.
	Metrics []Metric
	// JSON prints only the recommendation as one JSON document.
	JSON bool
	// Out receives the matrices and the summary, or the JSON.
	Out io.Writer
	// RunDir is the run directory as the user named it, for the commands
	// the report prints (sweep export, sweep rerun); empty prints RUN.
	RunDir string
	// Note is told what a person should know (a torn file, a missing
	// cell, a metric the run did not record, where the files went); nil
	// tells nobody.
	Note func(string)
	// SliceFailed is told a slice whose report could not be built from
	// what the run holds (IsInput); the other slices are reported. Nil
	// tells nobody.
	SliceFailed func(slice string, err error)
}

// IsInput reports whether err means the run directory cannot be reported
// as it is (not a run, no finished cell, bad analysis options): the
// input's fault, not the machine's.
func IsInput(err error) bool {
	return errors.Is(err, results.ErrNotRun) || errors.Is(err, results.ErrNoFinishedCells) || errors.Is(err, sweep.ErrBadInput)
}

func (p Print) note(format string, args ...any) {
	if p.Note != nil {
		p.Note(fmt.Sprintf(format, args...))
	}
}

// WriteRun builds the report of the run directory dir, writes its files
// there (report.md, report.html, results.csv, results.json, charts/) and
// prints it. A run with extra axes is reported per slice (one grid per
// combination of the extra values) in slices/<slice>/, with an index
// report.md and the whole run's results.csv at the top.
func WriteRun(dir string, opts Options, p Print) error {
	run, err := results.LoadRun(dir)
	if err != nil {
		return err
	}
	for _, w := range run.Warnings {
		p.note("%s", w)
	}
	for _, m := range run.Missing {
		p.note("missing: %s", m)
	}
	slices := run.Slices()
	if len(slices) == 1 {
		return writeSlice(dir, run, opts, p)
	}
	return writeSlices(dir, run, slices, opts, p)
}

// writeSlice reports one grid into dir.
func writeSlice(dir string, run *results.Run, opts Options, p Print) error {
	rep, err := Build(run, opts)
	if err != nil {
		return err
	}
	rep.runDir = p.RunDir
	if err := WriteFiles(dir, rep); err != nil {
		return err
	}
	if rep.USL == nil && len(opts.PredictCPUs) > 0 {
		p.note("%s", rep.USLNote)
	}
	if p.JSON {
		return WriteJSON(p.Out, rep)
	}
	if err := WriteHeadline(p.Out, rep, rep.runDir); err != nil {
		return err
	}
	for _, m := range p.Metrics {
		if !rep.HasMetric(m) {
			p.note("%s was not recorded in this run; its matrix is left out", m)
			continue
		}
		if err := WriteTerminalMatrices(p.Out, rep, m); err != nil {
			return err
		}
	}
	if err := WriteTerminalSummary(p.Out, rep); err != nil {
		return err
	}
	p.note("wrote report.md, report.html, results.csv, results.json and charts/ in %s", dir)
	return nil
}

// writeSlices reports each slice into dir/slices/<slug> and writes the
// index report.md and the tidy results.csv of the whole run into dir.
func writeSlices(dir string, run *results.Run, names []string, opts Options, p Print) error {
	var index bytes.Buffer
	fmt.Fprintf(&index, "# sweep report: run %s\n\nThe run has extra axes; each slice below is one grid of CPU × web threads × pool.\n\n", run.RunID)
	var docs []json.RawMessage
	sub := p
	sub.JSON = false
	if p.JSON {
		sub.Out = io.Discard
	}
	for _, name := range names {
		slug := filepath.Join("slices", results.SliceSlug(name))
		fmt.Fprintf(sub.Out, "== slice: %s ==\n", name)
		fmt.Fprintf(&index, "- %s: [report.md](%s/report.md), [report.html](%s/report.html)\n", name, slug, slug)
		if err := writeSlice(filepath.Join(dir, slug), run.Only(name), opts, sub); err != nil {
			if !IsInput(err) {
				return err
			}
			if p.SliceFailed != nil {
				p.SliceFailed(name, err)
			}
			continue
		}
		doc, err := sliceJSON(run.Only(name), opts, name)
		if err != nil {
			return err
		}
		docs = append(docs, doc)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "report.md"), index.Bytes()); err != nil {
		return err
	}
	if err := wholeCSV(dir, run, opts); err != nil {
		return err
	}
	if p.JSON {
		return json.NewEncoder(p.Out).Encode(map[string]any{"run_id": run.RunID, "slices": docs})
	}
	return nil
}

// sliceJSON is the JSON recommendation of one slice, with its name.
func sliceJSON(run *results.Run, opts Options, name string) (json.RawMessage, error) {
	rep, err := Build(run, opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		return nil, err
	}
	doc["slice"] = name
	return json.Marshal(doc)
}

// wholeCSV writes results.csv of every slice: one row per cell ×
// repetition with the extra axes as columns.
func wholeCSV(dir string, run *results.Run, opts Options) error {
	rep, err := Build(run, opts)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rep); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, "results.csv"), buf.Bytes())
}
