package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/sweep"
)

// savedSpec reads a run directory's spec, with the DSNs given to resume
// or rerun (or SWEEP_DB_DSN and SWEEP_POOLER_DSN): the spec does not keep
// them, and another host or password is no other spec.
func savedSpec(cmd *cobra.Command, dir string, d dsnFlags) (sweep.Spec, error) {
	dsnsFromEnv(cmd, &d.db, &d.pooler)
	return session.SavedSpec(d.of(dir))
}

// dsnFlags are the DSNs resume and rerun take.
type dsnFlags struct{ db, pooler string }

// of is the run in dir taken up again with these DSNs.
func (d dsnFlags) of(dir string) session.SavedRun {
	return session.SavedRun{Dir: dir, DBDSN: d.db, PoolerDSN: d.pooler}
}

func (d *dsnFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&d.db, "db-dsn", "", "the run's database DSN; its host or password may differ from the run's (default: env SWEEP_DB_DSN)")
	fs.StringVar(&d.pooler, "pooler-dsn", "", "the run's PgBouncer DSN, for its pool stats (default: env SWEEP_POOLER_DSN)")
}

func newResumeCmd(stdout, stderr io.Writer) *cobra.Command {
	var dsns dsnFlags
	var opts session.Options
	var lf liveFlags
	cmd := &cobra.Command{
		Use:   "resume RUN_DIR",
		Short: "Resume a run with its saved spec: finished cells are kept, interrupted ones run again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := savedSpec(cmd, args[0], dsns)
			if err != nil {
				return err
			}
			stop, err := lf.apply(cmd.Context(), &opts, stderr)
			if err != nil {
				return err
			}
			defer stop()
			return runGrid(cmd.Context(), spec, opts, stdout, stderr, true)
		},
	}
	dsns.add(cmd.Flags())
	cmd.Flags().StringVar(&opts.K6, "k6", "", "path of the k6 binary (default: k6 on PATH)")
	cmd.Flags().BoolVar(&opts.RetryFailed, "retry-failed", false, "run failed cells again")
	lf.add(cmd.Flags())
	return cmd
}

func newRerunCmd(stdout, stderr io.Writer) *cobra.Command {
	var dsns dsnFlags
	var k6Path string
	var lf liveFlags
	var drifted bool
	cmd := &cobra.Command{
		Use:   "rerun RUN_DIR CELL_ID | rerun --drifted RUN_DIR",
		Short: "Run one cell again (or, with --drifted, every cell the report marks drifted) as a new repetition and print it beside the earlier ones",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			dsnsFromEnv(cmd, &dsns.db, &dsns.pooler)
			spec, jobs, err := rerunJobs(args, drifted, dsns)
			if err != nil {
				return err
			}
			if len(jobs) == 0 {
				_, err := fmt.Fprintf(stderr, "sweep: the control cell of %s did not drift: no cell to measure again\n", args[0])
				return err
			}
			opts := session.Options{K6: k6Path, Jobs: jobs, Env: envOf(cmd.Context())}
			stop, err := lf.apply(cmd.Context(), &opts, stderr)
			if err != nil {
				return err
			}
			defer stop()
			err = runGrid(cmd.Context(), spec, opts, io.Discard, stderr, true)
			if errors.Is(err, sweep.ErrBadInput) {
				return err
			}
			for _, job := range jobs {
				err = errors.Join(err, report.WriteRepetitions(stdout, args[0], job.Cell.ID))
			}
			return err
		},
	}
	dsns.add(cmd.Flags())
	cmd.Flags().StringVar(&k6Path, "k6", "", "path of the k6 binary (default: k6 on PATH)")
	cmd.Flags().BoolVar(&drifted, "drifted", false, "measure again exactly the cells the report marks drifted (measured while the run's control cell drifted)")
	lf.add(cmd.Flags())
	return cmd
}

// rerunJobs are the spec and jobs of rerun: the one cell named, or with
// drifted the run's drifted cells (none when its control did not drift).
func rerunJobs(args []string, drifted bool, dsns dsnFlags) (sweep.Spec, []sweep.Job, error) {
	switch {
	case drifted && len(args) == 2:
		return sweep.Spec{}, nil, sweep.BadInput("drifted", "measures the cells the report marks drifted; give the run directory alone")
	case !drifted && len(args) == 1:
		return sweep.Spec{}, nil, sweep.BadInput("cell", "give the cell to measure again, or {drifted}")
	case drifted:
		return session.Drifted(dsns.of(args[0]))
	}
	spec, job, err := session.Again(dsns.of(args[0]), args[1])
	return spec, []sweep.Job{job}, err
}
