package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/strategy/limit"
	"github.com/sweep-tool/sweep/sweep"
)

func newLimitsCmd(stdout io.Writer) *cobra.Command {
	var db string
	cmd := &cobra.Command{
		Use:   "limits NAME=DIR...",
		Short: "Compare the safe limits of several stacks: one row each, the bottleneck with its evidence",
		Long: "limits reads the safe-limit searches of each stack (DIR: a sweep limit run, or a run --find-limit,\n" +
			"whose best cell is shown), their levels again from the levels' records, and prints one table: safe\n" +
			"limit, the level that failed, the bottleneck there with its evidence (pooler CPU and clients\n" +
			"waiting, database sessions, DB and target CPU), the best web/pool; then the stacks ranked by safe\n" +
			"limit and what their searches did not share (CPU limit, SLO, load model).",
		RunE: func(_ *cobra.Command, args []string) error {
			runs, err := limit.ParseStackRuns(args)
			if err != nil {
				return err
			}
			stacks := make([]limit.StackLimit, 0, len(runs))
			for _, r := range runs {
				s, err := limit.LoadStack(r, db)
				if err != nil {
					return err
				}
				stacks = append(stacks, s)
			}
			return limit.WriteStacks(stdout, stacks)
		},
	}
	cmd.Flags().StringVar(&db, "db-service", sweep.DefaultDBService,
		"the database's compose service, for runs that do not name one")
	return cmd
}
