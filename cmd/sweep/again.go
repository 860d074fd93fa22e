package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// savedSpec reads a run directory's spec, with the DSNs given to resume
// or rerun (or SWEEP_DB_DSN and SWEEP_POOLER_DSN): the spec does not keep
// them, and another host or password is no other spec.
func savedSpec(fs *pflag.FlagSet, dir string, d dsnFlags) (sweep.Spec, error) {
	meta, err := results.ReadMeta(dir)
	if err != nil {
		return sweep.Spec{}, sweep.BadInput("run", "%s is not a run directory: %v", dir, err)
	}
	dsnsFromEnv(fs, &d.db, &d.pooler)
	spec, err := sweep.SpecOf(meta, d.db)
	if err != nil {
		return spec, err
	}
	spec.Out, spec.PoolerDSN = dir, d.pooler
	return spec, nil
}

// dsnFlags are the DSNs resume and rerun take.
type dsnFlags struct{ db, pooler string }

func (d *dsnFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&d.db, "db-dsn", "", "the run's database DSN; its host or password may differ from the run's (or env SWEEP_DB_DSN)")
	fs.StringVar(&d.pooler, "pooler-dsn", "", "the run's PgBouncer DSN, for its pool stats (or env SWEEP_POOLER_DSN)")
}

func newResumeCmd(stdout, stderr io.Writer) *cobra.Command {
	var dsns dsnFlags
	var k6Path string
	var ro runOpts
	cmd := &cobra.Command{
		Use:   "resume RUN_DIR",
		Short: "Resume a run with its saved spec: finished cells are kept, interrupted ones run again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := savedSpec(cmd.Flags(), args[0], dsns)
			if err != nil {
				return err
			}
			env := &runEnv{stdout: stdout, stderr: stderr, k6Path: k6Path, opts: ro}
			return env.sweep(cmd.Context(), spec)
		},
	}
	dsns.add(cmd.Flags())
	cmd.Flags().StringVar(&k6Path, "k6", "", "path of the k6 binary")
	cmd.Flags().BoolVar(&ro.retryFailed, "retry-failed", false, "run failed cells again")
	return cmd
}

func newRerunCmd(stdout, stderr io.Writer) *cobra.Command {
	var dsns dsnFlags
	var k6Path string
	cmd := &cobra.Command{
		Use:   "rerun RUN_DIR CELL_ID",
		Short: "Run one cell again as a new repetition and print it beside the earlier ones",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if meta, err := results.ReadMeta(args[0]); err == nil {
				if _, err := sweep.FindSavedCell(meta, args[1]); err != nil {
					return err // an unknown cell is said before the DSN or script is asked for
				}
			}
			spec, err := savedSpec(cmd.Flags(), args[0], dsns)
			if err != nil {
				return err
			}
			cell, err := spec.FindCell(args[1])
			if err != nil {
				return err
			}
			rep := sweep.NextRep(args[0], cell.ID)
			env := &runEnv{stdout: io.Discard, stderr: stderr, k6Path: k6Path,
				jobs: []sweep.Job{{Cell: cell, Rep: rep}}}
			err = env.sweep(cmd.Context(), spec)
			if errors.Is(err, sweep.ErrBadInput) {
				return err
			}
			return errors.Join(compareReps(stdout, args[0], cell.ID), err)
		},
	}
	dsns.add(cmd.Flags())
	cmd.Flags().StringVar(&k6Path, "k6", "", "path of the k6 binary")
	return cmd
}

// compareReps prints every repetition of a cell with the spread between
// them, so a person can tell a real difference from noise.
func compareReps(w io.Writer, dir, cellID string) error {
	var rps, p99 []float64
	fmt.Fprintf(w, "%s\n%-5s %-8s %10s %10s %9s\n", cellID, "rep", "status", "rps", "p99 ms", "errors %")
	for rep := 1; ; rep++ {
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cellID, rep), results.ResultFile))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			fmt.Fprintf(w, "r%-4d unreadable: %v\n", rep, err)
			continue
		}
		fmt.Fprintf(w, "r%-4d %-8s %10.1f %10.2f %9.2f\n", rep, rec.Status, rec.RPS, rec.LatencyMS.P99, rec.ErrorRate*100)
		if rec.Status == results.StatusOK {
			rps, p99 = append(rps, rec.RPS), append(p99, rec.LatencyMS.P99)
		}
	}
	if len(rps) < 2 {
		_, err := fmt.Fprintln(w, "noise: one ok repetition only; nothing to compare")
		return err
	}
	_, err := fmt.Fprintf(w, "noise: rps spread %.1f%% (coefficient of variation), p99 spread %.1f%%; "+
		"the newest differs from the mean of the earlier ones by %+.1f%% rps, %+.1f%% p99\n",
		cv(rps), cv(p99), lastDelta(rps), lastDelta(p99))
	return err
}

// cv is the coefficient of variation in percent.
func cv(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	if mean == 0 {
		return 0
	}
	return 100 * math.Sqrt(sq/float64(len(xs)-1)) / mean
}

// lastDelta is the last value against the mean of the others, in percent.
func lastDelta(xs []float64) float64 {
	n := len(xs)
	var sum float64
	for _, x := range xs[:n-1] {
		sum += x
	}
	mean := sum / float64(n-1)
	if mean == 0 {
		return 0
	}
	return 100 * (xs[n-1] - mean) / mean
}
