package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/sweep"
)

// runOpts are the run command's flags beyond the spec.
type runOpts struct {
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
	var ro runOpts
	cmd.Flags().BoolVar(&ro.forceNew, "force-new", false, "start a new run even if --out holds a run with a different spec (the old one is moved aside)")
	cmd.Flags().BoolVar(&ro.retryFailed, "retry-failed", false, "on resume, run failed cells again")
	cmd.Flags().BoolVar(&ro.yes, "yes", false, "allow grids above 500 cells or 48 hours")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := flags.resolve(cmd)
		if err != nil {
			return err
		}
		env := &runEnv{stdout: stdout, stderr: stderr, k6Path: flags.k6, script: flags.script, opts: ro}
		return env.sweep(cmd.Context(), spec)
	}
	return cmd
}
