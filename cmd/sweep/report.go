package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/results/report"
	"github.com/sweep-tool/sweep/sweep"
)

// reportFlags are the analysis options shared by report and run.
type reportFlags struct {
	metrics []string
	json    bool
	opts    report.Options
	skip    bool // no report (preflight check)
}

func (f *reportFlags) bind(cmd *cobra.Command) {
	f.opts = report.DefaultOptions()
	cmd.Flags().StringSliceVar(&f.metrics, "metric", []string{"rps", "p99"},
		"matrices to print: rps, p99, errors, cpu (target CPU % of limit), sessions (peak DB sessions), limit (safe limit, run --find-limit)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print only the recommendation as one JSON document")
	bindAnalysis(cmd, &f.opts)
	cmd.Flags().Var(numberList{"predict-cpus", &f.opts.PredictCPUs}, "predict-cpus",
		"CPU limits to predict best RPS at from the Universal Scalability Law fit (needs 3+ measured CPU limits), e.g. 12,16")
}

// bindAnalysis binds the options that decide the winners (report, run,
// export), starting from opts' values.
func bindAnalysis(cmd *cobra.Command, opts *report.Options) {
	cmd.Flags().Float64Var(&opts.ErrorBound, "error-bound", opts.ErrorBound, "cells with a higher error rate (0..1) never win")
	cmd.Flags().Float64Var(&opts.NoiseBand, "noise", opts.NoiseBand, "assumed relative noise (0..1) of a cell measured once")
}

func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report RUN_DIR",
		Short: "Matrices, recommendation, Pareto, scaling, charts and exports from a run directory",
		Long: "Reads RUN_DIR and writes report.md, report.html, results.csv, results.json and charts/ into it,\n" +
			"then prints the matrices (or, with --json, only the recommendation).",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			return writeReport(args[0], f, stdout, stderr)
		},
	}
	f.bind(cmd)
	cmd.Flags().StringVar(&f.opts.DBService, "db-service", f.opts.DBService,
		"the database's compose service, whose CPU limit the pool-size rule of thumb reads from the records")
	return cmd
}

// writeReport builds the report of dir, writes its files and prints it.
// A run with extra axes is reported per slice (one grid per combination
// of the extra values) in slices/<slice>/, with an index at the top.
func writeReport(dir string, f reportFlags, stdout, stderr io.Writer) error {
	metrics, err := parseMetrics(f.metrics)
	if err != nil {
		return err
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		return reportInput(err)
	}
	for _, w := range run.Warnings {
		fmt.Fprintf(stderr, "report: %s\n", w)
	}
	for _, m := range run.Missing {
		fmt.Fprintf(stderr, "report: missing: %s\n", m)
	}
	slices := run.Slices()
	if len(slices) == 1 {
		return reportSlice(dir, run, f, metrics, stdout, stderr)
	}
	return reportSlices(dir, run, slices, f, metrics, stdout, stderr)
}

// reportSlice reports one grid into dir.
func reportSlice(dir string, run *results.Run, f reportFlags, metrics []report.Metric, stdout, stderr io.Writer) error {
	rep, err := report.Build(run, f.opts)
	if err != nil {
		return reportInput(err)
	}
	if err := report.WriteFiles(dir, rep); err != nil {
		return err
	}
	if rep.USL == nil && len(f.opts.PredictCPUs) > 0 {
		fmt.Fprintf(stderr, "report: %s\n", rep.USLNote)
	}
	if f.json {
		return report.WriteJSON(stdout, rep)
	}
	for _, m := range metrics {
		if !rep.HasMetric(m) {
			fmt.Fprintf(stderr, "report: %s was not recorded in this run; its matrix is left out\n", m)
			continue
		}
		if err := report.WriteTerminalMatrices(stdout, rep, m); err != nil {
			return err
		}
	}
	if err := report.WriteTerminalSummary(stdout, rep); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "report: wrote report.md, report.html, results.csv, results.json and charts/ in %s\n", dir)
	return nil
}

// reportSlices reports each slice into dir/slices/<slug> and writes the
// index report.md and the tidy results.csv of the whole run into dir.
func reportSlices(dir string, run *results.Run, names []string, f reportFlags, metrics []report.Metric,
	stdout, stderr io.Writer) error {
	var index bytes.Buffer
	fmt.Fprintf(&index, "# sweep report: run %s\n\nThe run has extra axes; each slice below is one grid of CPU × web threads × pool.\n\n", run.RunID)
	var docs []json.RawMessage
	sub := f
	sub.json = false
	out := stdout
	if f.json {
		out = io.Discard
	}
	for _, name := range names {
		slug := filepath.Join("slices", results.SliceSlug(name))
		fmt.Fprintf(out, "== slice: %s ==\n", name)
		fmt.Fprintf(&index, "- %s: [report.md](%s/report.md), [report.html](%s/report.html)\n", name, slug, slug)
		if err := reportSlice(filepath.Join(dir, slug), run.Only(name), sub, metrics, out, stderr); err != nil {
			if !errors.Is(err, sweep.ErrBadInput) {
				return err
			}
			fmt.Fprintf(stderr, "report: slice %s: %v\n", name, err)
			continue
		}
		doc, err := sliceJSON(run.Only(name), f.opts, name)
		if err != nil {
			return err
		}
		docs = append(docs, doc)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, "report.md"), index.Bytes()); err != nil {
		return err
	}
	if err := wholeCSV(dir, run, f.opts); err != nil {
		return err
	}
	if f.json {
		return json.NewEncoder(stdout).Encode(map[string]any{"run_id": run.RunID, "slices": docs})
	}
	return nil
}

// sliceJSON is the --json recommendation of one slice, with its name.
func sliceJSON(run *results.Run, opts report.Options, name string) (json.RawMessage, error) {
	rep, err := report.Build(run, opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, rep); err != nil {
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
func wholeCSV(dir string, run *results.Run, opts report.Options) error {
	rep, err := report.Build(run, opts)
	if err != nil {
		return reportInput(err)
	}
	var buf bytes.Buffer
	if err := report.WriteCSV(&buf, rep); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, "results.csv"), buf.Bytes())
}

func parseMetrics(names []string) ([]report.Metric, error) {
	out := make([]report.Metric, 0, len(names))
	for _, n := range names {
		m, err := report.ParseMetric(n)
		if err != nil {
			return nil, sweep.BadInput("metric", "%v", errors.Unwrap(err))
		}
		out = append(out, m)
	}
	return out, nil
}

// reportInput turns the report's input errors into bad input.
func reportInput(err error) error {
	if errors.Is(err, results.ErrNotRun) || errors.Is(err, results.ErrNoFinishedCells) ||
		errors.Is(err, report.ErrBadInput) {
		return sweep.BadInput("report", "%v", err)
	}
	return err
}

func newCompareCmd(stdout io.Writer) *cobra.Command {
	var failOn string
	cmd := &cobra.Command{
		Use:   "compare RUN_A RUN_B",
		Short: "Compare two runs cell by cell; --fail-on makes a regression exit 1",
		Args:  cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, args []string) error {
			var gates []report.Gate
			if failOn != "" {
				g, err := report.ParseGates(failOn)
				if err != nil {
					return sweep.BadInput("fail-on", "%v", err)
				}
				gates = g
			}
			return compareRuns(stdout, args[0], args[1], gates)
		},
	}
	cmd.Flags().StringVar(&failOn, "fail-on", "", "regression gates, e.g. rps:-5%,p99:+10% (exit 1 when one trips)")
	return cmd
}

func compareRuns(w io.Writer, dirA, dirB string, gates []report.Gate) error {
	a, err := results.LoadRun(dirA)
	if err != nil {
		return reportInput(err)
	}
	b, err := results.LoadRun(dirB)
	if err != nil {
		return reportInput(err)
	}
	cmp, err := report.Compare(a, b, report.CompareOptions{Gates: gates})
	if err != nil {
		return reportInput(err)
	}
	if err := report.WriteCompare(w, cmp); err != nil {
		return err
	}
	if len(cmp.Tripped) > 0 {
		return fmt.Errorf("%w: %d gate(s) tripped", errRegression, len(cmp.Tripped))
	}
	return nil
}

// errRegression means compare found a regression beyond --fail-on.
var errRegression = errors.New("regression")
