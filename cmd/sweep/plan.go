package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/halving"
)

func newPlanCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Print every cell of the grid and the estimated time; starts nothing",
		Long:  "Print every cell of the grid and the estimated total time. Needs no Docker Engine.\n\n" + sweep.RuleHelp,
		Args:  cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags())
	fl := newFindLimitFlags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := resolveGrid(cmd, flags, fl)
		if err != nil {
			return err
		}
		if len(spec.CPUs) == 0 {
			return sweep.BadInput("cpus", "no CPU limits; give e.g. --cpus 2,4,6,8")
		}
		for _, c := range spec.CPUs {
			if c > float64(runtime.NumCPU()) {
				fmt.Fprintf(stderr, "warning: --cpus %s is above this host's %d CPUs; `sweep run` here would refuse it\n",
					sweep.FormatNumber(c), runtime.NumCPU())
			}
		}
		return writePlan(stdout, spec)
	}
	return cmd
}

// writePlan prints the cells and the estimate.
func writePlan(w io.Writer, spec sweep.Spec) error {
	cells := spec.Cells()
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("#", "cell", "cpus", "web threads", "db pool", "multipliers (web × db)")
	for i, c := range cells {
		pairs := make([]string, len(c.Mults))
		for j, m := range c.Mults {
			pairs[j] = sweep.FormatNumber(m[0]) + "×" + sweep.FormatNumber(m[1])
		}
		if c.Baseline {
			pairs = []string{"baseline"}
		}
		if err := t.Append(fmt.Sprint(i+1), c.ID, sweep.FormatNumber(c.CPUs), fmt.Sprint(c.WebThreads),
			fmt.Sprint(c.DBPool), strings.Join(pairs, " ")); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	est := spec.Estimate()
	search := ""
	if est.Levels > 1 {
		search = fmt.Sprintf(" × up to %d search levels", est.Levels)
	}
	_, err := fmt.Fprintf(w, "%d cells × %d repetitions × (warm-up %s + measure %s%s + ~%s per cell) + ~%s to start and stop the stack ≈ %s\n",
		len(cells), max(spec.Repeat, 1), spec.Warmup.Std(), spec.Duration.Std(), search, sweep.CellOverhead,
		sweep.StackOverhead, sweep.Round(est.Total))
	if err != nil || spec.FindLimit != nil {
		return err
	}
	for _, line := range halving.Describe(spec, halving.DefaultPlan(spec.Warmup.Std(), spec.Duration.Std())) {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
