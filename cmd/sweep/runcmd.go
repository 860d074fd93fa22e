package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// runOpts are the run command's flags beyond the spec.
type runOpts struct {
	checkFirst  bool
	forceNew    bool
	retryFailed bool
	yes         bool
}

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run every cell of the grid against the stack and print the matrices",
		Long: "Run every cell of the grid: recreate the target with the cell's CPU limit and env, wait until it is\n" +
			"ready, warm up, measure, and write the cell's record. Running again with the same --out resumes.\n\n" +
			sweep.RuleHelp,
		Args: cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags())
	fl := newFindLimitFlags(cmd.Flags())
	var ro runOpts
	cmd.Flags().BoolVar(&ro.forceNew, "force-new", false, "start a new run even if --out holds a run with a different spec (the old one is moved aside)")
	cmd.Flags().BoolVar(&ro.retryFailed, "retry-failed", false, "on resume, run failed cells again")
	cmd.Flags().BoolVar(&ro.yes, "yes", false, "allow grids above 500 cells or 48 hours")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := resolveGrid(cmd, flags, fl)
		if err != nil {
			return err
		}
		if ro.checkFirst {
			if err := preflight(cmd.Context(), spec, flags, stdout, stderr); err != nil {
				return err
			}
		}
		env := &runEnv{stdout: stdout, stderr: stderr, k6Path: flags.k6, opts: ro}
		return env.sweep(cmd.Context(), spec)
	}
	cmd.Flags().BoolVar(&ro.checkFirst, "check-first", false, "run `sweep check` (one short cell end to end) before the grid")
	return cmd
}

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate everything and run one short cell end to end (same flags as run)",
		Long: "check validates every flag, the compose files, the engine, the database and the driver, then runs\n" +
			"the first cell for a few seconds into a temporary directory and tears it down: a broken stack is\n" +
			"found in a minute, not at 3 a.m.",
		Args: cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags())
	fl := newFindLimitFlags(cmd.Flags()) // accepted and checked, so run's flags and config work here too
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := resolveGrid(cmd, flags, fl)
		if err != nil {
			return err
		}
		return preflight(cmd.Context(), spec, flags, stdout, stderr)
	}
	return cmd
}

// preflight runs the first cell of spec briefly in a throwaway directory.
func preflight(ctx context.Context, spec sweep.Spec, flags *specFlags, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "sweep-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	first := spec.Cells()
	if len(first) == 0 {
		return sweep.BadInput("cpus", "the grid is empty")
	}
	check := spec
	check.Out, check.Repeat, check.Retries, check.MaxFailures = dir, 1, 0, 0
	check.FindLimit = nil // one short load tells whether the stack works
	check.Warmup = sweep.Duration(min(spec.Warmup.Std(), 2*time.Second))
	check.Duration = sweep.Duration(min(spec.Duration.Std(), 5*time.Second))
	env := &runEnv{stdout: io.Discard, stderr: stderr, k6Path: flags.k6, check: true,
		jobs: []sweep.Job{{Cell: first[0], Rep: 1}}}
	if err := env.sweep(ctx, check); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, first[0].ID, 1), results.ResultFile))
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	fmt.Fprintf(stdout, "check passed: %s ran for %s at %.1f rps, p99 %.2f ms, errors %.2f%%; overhead %.1f s\n",
		rec.Cell.ID, check.Duration.Std(), rec.RPS, rec.LatencyMS.P99, rec.ErrorRate*100,
		rec.PhasesS["apply"]+rec.PhasesS["ready"]+rec.PhasesS["readback"])
	return nil
}
