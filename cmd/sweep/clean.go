package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/sweep"
)

func newCleanCmd(stdout io.Writer) *cobra.Command {
	var runID string
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove containers, networks and volumes left by sweep runs (found by the sweep.run label)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			eng, err := compose.NewEngine(cmd.Context())
			if err != nil {
				return sweep.BadInput("run", "%v", err)
			}
			defer eng.Close()
			ids := []string{runID}
			if runID == "" {
				if ids, err = leftoverRuns(cmd.Context(), eng); err != nil {
					return err
				}
			}
			return cleanRuns(cmd.Context(), stdout, eng, ids)
		},
	}
	cmd.Flags().StringVar(&runID, "run", "", "only this run id (default: every run with leftovers)")
	return cmd
}

// leftoverRuns lists the run ids on containers labelled sweep.run.
func leftoverRuns(ctx context.Context, eng compose.Engine) ([]string, error) {
	list, err := eng.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", sweep.LabelRun))})
	if err != nil {
		return nil, fmt.Errorf("list containers: %w", err)
	}
	seen := map[string]bool{}
	for _, c := range list {
		seen[c.Labels[sweep.LabelRun]] = true
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

func cleanRuns(ctx context.Context, w io.Writer, eng compose.Engine, ids []string) error {
	if len(ids) == 0 {
		fmt.Fprintln(w, "nothing to clean: no container carries the sweep.run label")
		return nil
	}
	for _, id := range ids {
		got, err := compose.Cleanup(ctx, eng, id)
		if err != nil {
			return fmt.Errorf("clean run %s: %w", id, err)
		}
		fmt.Fprintf(w, "run %s: removed %d containers (%s), %d networks, %d volumes\n", id,
			len(got.Containers), strings.Join(got.Containers, ", "), len(got.Networks), len(got.Volumes))
	}
	return nil
}
