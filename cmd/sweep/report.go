package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/sweep"
)

// reportFlags are the analysis options shared by report and run.
type reportFlags struct {
	metrics []string
	json    bool
	opts    report.Options
}

func (f *reportFlags) bind(cmd *cobra.Command) {
	f.opts = report.DefaultOptions()
	cmd.Flags().StringSliceVar(&f.metrics, "metric", []string{"rps", "p99"},
		"matrices to print: rps, p99, errors, cpu (target CPU % of limit), sessions (peak DB sessions), limit (safe limit, run --find-limit)")
	cmd.Flags().BoolVar(&f.json, "json", false, "print only the recommendation as one JSON document")
	bindAnalysis(cmd, &f.opts)
	cmd.Flags().Var(sweep.Numbers{Field: "predict_cpus", Vals: &f.opts.PredictCPUs}, "predict-cpus",
		"CPU limits to predict best RPS at from the Universal Scalability Law fit (needs 3+ measured CPU limits), e.g. 12,16 (default: none)")
}

// bindAnalysis binds the options that decide the winners (report, run,
// export), starting from opts' values.
func bindAnalysis(cmd *cobra.Command, opts *report.Options) {
	cmd.Flags().Var(sweep.Share{Field: "error_bound", V: &opts.ErrorBound}, "error-bound",
		"cells with a higher error rate never win, e.g. 1% or 0.01")
	cmd.Flags().Var(sweep.Share{Field: "noise_band", V: &opts.NoiseBand}, "noise",
		"assumed relative noise of a cell measured once, e.g. 5% or 0.05, when the run did not measure its noise "+
			"(fewer than 3 controls, --control-every, and too few repeated cells, --repeat)")
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

// writeReport builds the report of dir, writes its files and prints it
// (see report.WriteRun); notes go to stderr.
func writeReport(dir string, f reportFlags, stdout, stderr io.Writer) error {
	metrics, err := parseMetrics(f.metrics)
	if err != nil {
		return err
	}
	return reportInput(report.WriteRun(dir, f.opts, report.Print{Metrics: metrics, JSON: f.json, Out: stdout, RunDir: dir,
		Note: func(s string) { fmt.Fprintf(stderr, "report: %s\n", s) },
		SliceFailed: func(name string, err error) {
			fmt.Fprintf(stderr, "report: slice %s: %s\n", name, message(reportInput(err)))
		}}))
}

func parseMetrics(names []string) ([]report.Metric, error) {
	out := make([]report.Metric, 0, len(names))
	for _, n := range names {
		m, err := report.ParseMetric(n)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// reportInput turns the report's input errors into bad input.
func reportInput(err error) error {
	var b *sweep.BadInputError
	if !errors.As(err, &b) && report.IsInput(err) {
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
					return err
				}
				gates = g
			}
			return compareRuns(stdout, args[0], args[1], gates)
		},
	}
	cmd.Flags().StringVar(&failOn, "fail-on", "", "regression gates, each limit a percent with its sign, e.g. rps:-5%,p99:+10% (exit 1 when one trips; default: none)")
	return cmd
}

func compareRuns(w io.Writer, dirA, dirB string, gates []report.Gate) error {
	cmp, err := report.CompareDirs(dirA, dirB, report.CompareOptions{Gates: gates})
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
