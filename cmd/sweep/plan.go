package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep"
)

func newPlanCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print every cell of the grid and the estimated time; starts nothing",
		Long:  "Print every cell of the grid and the estimated total time. Needs no Docker Engine.\n\n" + sweep.RuleHelp,
		Args:  cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags(), cmdPlan)
	fl := newFindLimitFlags(cmd.Flags(), cmdPlan)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := resolveGrid(cmd, flags, fl)
		if err != nil {
			return err
		}
		if err := spec.ValidatePlan(); err != nil {
			return err
		}
		if err := halving.CheckSpec(spec); err != nil {
			return err
		}
		for _, c := range spec.CPUs {
			if c > float64(runtime.NumCPU()) {
				fmt.Fprintf(stderr, "warning: --cpus %s is above this host's %d CPUs; `sweep run` here would refuse it\n",
					sweep.FormatNumber(c), runtime.NumCPU())
			}
		}
		if err := sweep.WritePlan(stdout, spec); err != nil || spec.FindLimit != nil {
			return err
		}
		for _, line := range halving.Describe(spec, halving.DefaultPlan(spec.Warmup.Std(), spec.Duration.Std())) {
			if _, err := fmt.Fprintln(stdout, line); err != nil {
				return err
			}
		}
		return nil
	}
	return cmd
}
