package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/sweep"
)

func newCleanCmd(stdout io.Writer) *cobra.Command {
	var runID, kubeContext string
	var force, kubernetes bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove containers, networks and volumes left by sweep runs that are no longer alive",
		Long: "Remove what sweep runs left on the engine (found by the sweep.run label; on a swarm manager, the runs'\n" +
			"services and networks too). A run is removed only when it\n" +
			"is provably dead: its run directory (label sweep.dir, on this host) is gone, or its sweep.lock is not\n" +
			"held by a live sweep process. Live runs, and runs whose state cannot be told, are skipped and listed.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) (err error) {
			if timeout <= 0 {
				return sweep.BadInput("timeout", "must be > 0, e.g. 5m: the bound of the whole clean")
			}
			if cmd.Flags().Changed("run") && runID == "" {
				return sweep.BadInput("run", "is empty; give the id of the run to remove, or leave --run out to remove every run that is not alive")
			}
			if kubernetes {
				c, err := kube.Connect(cmd.Context(), envOf(cmd.Context()), kubeContext)
				if err != nil {
					return sweep.BadInput("kubernetes", "%v", err)
				}
				return cleanKubernetes(cmd.Context(), stdout, c, runID, force, timeout)
			}
			if kubeContext != "" {
				return sweep.BadInput("kube_context", "picks the cluster whose namespaces to clean; give {kubernetes} too")
			}
			eng, err := engine.Connect(cmd.Context(), envOf(cmd.Context()))
			if err != nil {
				return sweep.BadInput("run", "%v", err)
			}
			defer func() { err = errors.Join(err, eng.Close()) }()
			return clean(cmd.Context(), stdout, eng, runID, force, timeout)
		},
	}
	cmd.Flags().StringVar(&runID, "run", "", "only this run id (default: every run with leftovers that is not alive)")
	cmd.Flags().BoolVar(&kubernetes, "kubernetes", false, "clean the runs' namespaces (sweep-<run id>) on the Kubernetes cluster KUBECONFIG names instead of the engine")
	cmd.Flags().StringVar(&kubeContext, "kube-context", "", "with --kubernetes: the kubeconfig context (default: the current one)")
	cmd.Flags().BoolVar(&force, "force", false, "remove even a run that is alive or whose state cannot be told")
	cmd.Flags().DurationVar(&timeout, "timeout", sweep.CleanTimeout, "the bound of the whole clean: an engine or API server that stops answering fails it then, what was removed so far listed")
	return cmd
}

// clean runs session.Clean and says what it did, run by run: the swarm's
// part first, then the engine's, or that nothing carries the label.
func clean(ctx context.Context, w io.Writer, eng session.CleanEngine, runID string, force bool, bound time.Duration) error {
	done, err := session.Clean(ctx, eng, runID, force, bound)
	for _, o := range done.Swarm {
		if o.Skipped != nil {
			fmt.Fprintf(w, "run %s: skipped on the swarm: %v\n", o.ID, errors.Unwrap(o.Skipped))
			continue
		}
		fmt.Fprintf(w, "run %s: removed %d swarm services (%s), %d networks, %d volumes on the nodes\n", o.ID,
			len(o.Removed.Services), strings.Join(o.Removed.Services, ", "), len(o.Removed.Networks), len(o.Removed.Volumes))
	}
	if len(done.Engine) == 0 && err == nil {
		fmt.Fprintln(w, "nothing to clean: no container carries the sweep.run label")
	}
	for _, o := range done.Engine {
		if o.Skipped != nil {
			fmt.Fprintf(w, "run %s: skipped: %v\n", o.ID, errors.Unwrap(o.Skipped))
			continue
		}
		fmt.Fprintf(w, "run %s: removed %d containers (%s), %d networks, %d volumes\n", o.ID,
			len(o.Removed.Containers), strings.Join(o.Removed.Containers, ", "), len(o.Removed.Networks), len(o.Removed.Volumes))
	}
	return err
}

// cleanKubernetes runs session.CleanKubernetes and says what it did, run
// by run, or that no namespace carries the label.
func cleanKubernetes(ctx context.Context, w io.Writer, c *kube.Client, runID string, force bool, bound time.Duration) error {
	done, err := session.CleanKubernetes(ctx, c, runID, force, bound)
	if len(done) == 0 && err == nil {
		fmt.Fprintln(w, "nothing to clean: no namespace carries the sweep.run label")
	}
	for _, o := range done {
		if o.Skipped != nil {
			fmt.Fprintf(w, "run %s: skipped: %v\n", o.ID, errors.Unwrap(o.Skipped))
			continue
		}
		fmt.Fprintf(w, "run %s: removed %d namespaces (%s)\n", o.ID, len(o.Removed), strings.Join(o.Removed, ", "))
	}
	return err
}
