package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/report/export"
	"github.com/sweep-tool/sweep/results"
)

func newExportCmd(stdout, stderr io.Writer) *cobra.Command {
	opts := export.Options{Report: report.DefaultOptions()}
	var format, out string
	cmd := &cobra.Command{
		Use:   "export RUN_DIR --cpus N",
		Short: "Write a profile's web threads and pool at a CPU budget as an env file, a compose override, JSON or a Kubernetes patch",
		Long: "At a CPU limit RUN_DIR measured, takes the pick of --profile there (the report's \"Set these\" row: the measured best,\n" +
			"or, where the data cannot separate it from other cells, the one with the fewest threads, then the smallest pool);\n" +
			"at a budget it did not, the rule across CPU limits the report gives for --profile, applied at --cpus by the\n" +
			"grid's rule (rounded half to even), and says so on stderr. --format env writes WEB_ENV=…/POOL_ENV=… lines with the run's variable\n" +
			"names; compose an override of the run's target service with its CPU limit where the stack's compose files\n" +
			"keep it (service cpus or deploy.resources.limits.cpus) and the env, to list after those files; json the\n" +
			"values and where they come from; kubernetes a strategic merge patch of the run's target Deployment (its container's\n" +
			"CPU limit, an equal request, and the env) for kubectl patch --type strategic or kustomize. A budget outside the measured CPU limits is said on stderr, with the USL\n" +
			"fit's predicted RPS when the run has one. A profile with no qualifying pair exits 1.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Format, opts.Env = export.Format(format), envOf(cmd.Context())
			return exportRun(args[0], opts, out, stdout, stderr)
		},
	}
	cmd.Flags().StringVar(&opts.Profile, "profile", "balanced", "the profile to export: latency-first, balanced or throughput-first")
	cmd.Flags().Float64Var(&opts.CPUs, "cpus", 0, "the CPU budget to export the values for, one number of CPUs, e.g. 4 (required)")
	cmd.Flags().StringVar(&format, "format", string(export.FormatEnv), "env, compose, json or kubernetes")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file (default: stdout)")
	cmd.Flags().StringVar(&out, "output", "", "the old name of --out")
	_ = cmd.Flags().MarkDeprecated("output", "use --out (or -o)")
	cmd.Flags().SetOutput(stderr) // pflag's word on --output, with the other warnings, not in the export
	cmd.Flags().StringArrayVar(&opts.Compose, "compose", nil,
		"the stack's compose files for --format compose (repeatable; default: the files the run used)")
	cmd.Flags().StringArrayVar(&opts.Manifests, "manifests", nil,
		"the stack's Kubernetes manifests for --format kubernetes (repeatable; default: those the run used)")
	bindAnalysis(cmd, &opts.Report)
	return cmd
}

// exportRun exports from the run in dir and writes the result to file
// (atomically) or stdout; warnings go to stderr.
func exportRun(dir string, opts export.Options, file string, stdout, stderr io.Writer) error {
	run, err := results.LoadRun(dir)
	if err != nil {
		return reportInput(err)
	}
	s, err := export.Export(run, opts)
	if err != nil {
		return reportInput(err)
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(stderr, "export: %s\n", w)
	}
	var buf bytes.Buffer
	if err := export.Write(&buf, s, opts.Format); err != nil {
		return err
	}
	if file != "" {
		return results.WriteFileAtomic(file, buf.Bytes())
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}
