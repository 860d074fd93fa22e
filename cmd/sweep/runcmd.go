package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/scaffold"
	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/progress"
)

func newRunCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run every cell of the grid against the stack and print the matrices",
		Long: "Run every cell of the grid: recreate the target with the cell's CPU limit and env, wait until it is\n" +
			"ready, warm up, measure, and write the cell's record. Running again with the same --out resumes.\n" +
			"A --config or --scenario file with a TODO line that sweep init wrote left in it is refused, naming each.\n\n" +
			sweep.RuleHelp,
		Args: cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags(), cmdRun)
	fl := newFindLimitFlags(cmd.Flags(), cmdRun)
	var opts session.Options
	var checkFirst bool
	var lf liveFlags
	fs := cmd.Flags()
	lf.add(fs)
	fs.BoolVar(&opts.ForceNew, "force-new", false, "start a new run even if --out holds a run with a different spec (the old one is moved aside)")
	fs.BoolVar(&opts.RetryFailed, "retry-failed", false, "on resume, run failed cells again")
	fs.BoolVar(&opts.AllowLarge, "yes", false, "allow grids above 500 cells or 48 hours")
	fs.BoolVar(&checkFirst, "check-first", false, "run sweep check (one short cell end to end, and the generator check) before the grid; "+
		"the check's comparison goes into the run as generator-check.json")
	inGroup(fs, groupGrid, "yes")
	inGroup(fs, groupMeasurement, "check-first")
	inGroup(fs, groupOutput, "force-new", "retry-failed", "metrics-addr", "k6-dashboard")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := resolveGrid(cmd, flags, fl)
		if err != nil {
			return err
		}
		if err := settled(flags, spec); err != nil {
			return err
		}
		stop, err := lf.apply(cmd.Context(), &opts, stderr)
		if err != nil {
			return err
		}
		defer stop()
		if checkFirst {
			if opts.Checked, err = preflight(cmd.Context(), spec, flags.k6, stdout, stderr); err != nil {
				return err
			}
		}
		opts.K6 = flags.k6
		return runGrid(cmd.Context(), spec, opts, stdout, stderr, true)
	}
	return cmd
}

func newCheckCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Validate the stack and run the grid's first cell briefly end to end (run's flags for them)",
		Long: "check validates every flag, the compose files, the engine, the database and the driver (and refuses a\n" +
			"--config file while a TODO line that sweep init wrote is left in it, naming each), then runs\n" +
			"the first cell for a few seconds into a temporary directory and tears it down: a broken stack is\n" +
			"found in a minute, not at 3 a.m. The cell runs with the chosen driver and then with the built-in one at\n" +
			"the same load: when the chosen driver's RPS is lower beyond noise, the generator, not the target, limits\n" +
			"results on this host, and check warns. It takes run's flags of the stack, the load and the first cell;\n" +
			"those of the grid's strategy, repetitions, order, controls, safe-limit search and output are run's only.\n\n" +
			"With --scenario FILE, check instead sends one iteration of each scenario of the file to the stack already\n" +
			"running at --url, a request at a time, and prints every step: the request as sent, its status, latency and\n" +
			"captured values. A step that fails (an unexpected status, a capture that finds nothing) fails the check\n" +
			"(exit 1) with the step and the start of its response; fix the file there, before a night of load.",
		Args: cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags(), cmdCheck)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, err := resolveGrid(cmd, flags, nil)
		if err != nil {
			return err
		}
		if err := settled(flags, spec); err != nil {
			return err
		}
		if spec.Scenario != nil {
			return checkScenario(cmd.Context(), spec, stdout)
		}
		_, err = preflight(cmd.Context(), spec, flags.k6, stdout, stderr)
		return err
	}
	return cmd
}

// settled is bad input while the --config file or the --scenario file
// holds a TODO line sweep init wrote (what it could not guess), naming
// each: check and run refuse them before anything starts, so a night is
// not spent on a guess nobody settled.
func settled(flags *specFlags, spec sweep.Spec) error {
	if err := scaffold.CheckTODOs("config", flags.file.Path, flags.file.Data); err != nil {
		return err
	}
	if spec.Scenario == nil {
		return nil
	}
	data, err := spec.Scenario.Verify()
	if err != nil {
		return sweep.BadInput("scenario", "%v", err)
	}
	return scaffold.CheckTODOs("scenario", spec.Scenario.Path, data)
}

// preflight runs the first cell of spec briefly in a throwaway directory,
// with the chosen driver and then the built-in one (the generator check),
// and returns their comparison.
func preflight(ctx context.Context, spec sweep.Spec, k6 string, stdout, stderr io.Writer) (*sweep.GeneratorCheck, error) {
	chk, err := session.NewCheck(spec)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := chk.Remove(); err != nil {
			fmt.Fprintf(stderr, "sweep: warning: check: %s\n", message(err))
		}
	}()
	if err := runGrid(ctx, chk.Spec(), chk.Options(session.Options{K6: k6, Env: envOf(ctx)}), io.Discard, stderr, false); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	c, err := chk.Result()
	if err != nil {
		return nil, err
	}
	rec := c.Record
	fmt.Fprintf(stdout, "check passed: %s ran for %s at %.1f rps, p99 %.2f ms, errors %.2f%%; overhead %.1f s\n",
		rec.Cell.ID, c.Duration, rec.RPS, rec.LatencyMS.P99, rec.ErrorRate*100,
		rec.PhasesS["apply"]+rec.PhasesS["ready"]+rec.PhasesS["readback"])
	if c.Generator != nil {
		fmt.Fprint(stdout, c.Generator.Text())
		if c.Generator.Limited {
			fmt.Fprintf(stderr, "sweep: warning: %s (--cpuset pins the target; --driver builtin)\n", c.Generator.Warning)
		}
	}
	return c.Generator, nil
}

// runGrid opens a session of spec, runs it, and prints the summary of
// what ran and (withReport) the run's report; the error is the run's as
// the user reads it.
func runGrid(ctx context.Context, spec sweep.Spec, opts session.Options, stdout, stderr io.Writer, withReport bool) error {
	opts.Version, opts.Notify, opts.Progress = version, tell(stderr), sweep.Progresses(progress.New(stderr), opts.Progress)
	opts.Env = envOf(ctx)
	s, err := session.Open(ctx, spec, opts)
	if err != nil {
		return err
	}
	defer closeSession(s, stderr)
	defer guard(s, stderr)()
	res, runErr := s.Run(ctx)
	if errors.Is(runErr, sweep.ErrBadInput) && len(res.Records) == 0 {
		return runErr // nothing was recorded, so there is nothing to report
	}
	reportErr := report.WriteRan(stdout, s.RunID(), spec.Service, res.Summary)
	if reportErr == nil && withReport {
		rf := reportFlags{metrics: []string{"rps", "p99"}, opts: report.DefaultOptions()}
		if spec.FindLimit != nil {
			rf.metrics = append(rf.metrics, string(report.MetricLimit))
		}
		reportErr = writeReport(s.Dir(), rf, stdout, stderr)
	}
	if reportErr != nil && !isLost(reportErr) {
		fmt.Fprintf(stderr, "sweep: report: %s\n", message(reportErr))
		reportErr = nil
	}
	err = outcome(res.Summary, runErr)
	if isLost(err) {
		return err // the later writes failed for the same reason
	}
	return errors.Join(err, res.FactsErr, reportErr)
}

// isLost reports whether err means a run file could not be written or
// read back: the run's records are not safe, which is exit 1.
func isLost(err error) bool {
	var we *results.WriteError
	return errors.As(err, &we) || errors.Is(err, results.ErrBadRecord)
}

// outcome maps the runner's result to the command's error.
func outcome(sum sweep.Summary, runErr error) error {
	switch {
	case errors.Is(runErr, sweep.ErrInterrupted):
		return fmt.Errorf("%w: the current cell is marked interrupted; run the same command again to resume", runErr)
	case isLost(runErr):
		return fmt.Errorf("%w; the run stopped so that no measurement is lost: make the run directory writable "+
			"(free space, permissions) and run the same command again to resume", runErr)
	case runErr != nil:
		return runErr
	case sum.Failed() > 0:
		return fmt.Errorf("%w: %d of %d cells failed (see their target.log)", errFailedCells, sum.Failed(), len(sum.Records))
	}
	return nil
}

// closeSession closes s and says, as a warning, what it could not
// release: the run's records are safe by then, so the exit code stays.
func closeSession(s *session.Session, stderr io.Writer) {
	if err := s.Close(); err != nil {
		fmt.Fprintf(stderr, "sweep: warning: %s\n", message(err))
	}
}

// guard makes a second Ctrl-C remove the session's containers by label,
// saying on stderr what could not be removed; the returned function
// withdraws that.
func guard(s *session.Session, stderr io.Writer) func() {
	cleanup := func() {
		if err := s.Cleanup(context.Background()); err != nil {
			fmt.Fprintf(stderr, "sweep: warning: %v; sweep clean removes the rest\n", err)
		}
	}
	onHardExit.Store(&cleanup)
	return func() { onHardExit.Store(nil) }
}
