package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/replay"
	"github.com/sweep-tool/sweep/sweep"
)

func newReplayCmd(stdout io.Writer) *cobra.Command {
	var strategy string
	var asJSON bool
	var opts replay.Options
	cmd := &cobra.Command{
		Use:   "replay RUN_DIR",
		Short: "Replay a finished grid run through the halving strategy: its time and whether it picks the same",
		Long: "Replays RUN_DIR (a full grid) through successive halving: which cells each round keeps, the share of the\n" +
			"run's wall time it would have needed (from the run's overheads, warm-ups and steady-state times) and whether\n" +
			"each profile's pick is the grid's or one the grid's report calls equivalent. --seeds N replays N times with\n" +
			"the short rounds' figures perturbed by the run's measured noise (or --noise) and prints the agreement rate.\n\n" +
			"An interleaved grid run (--schedule interleaved) is replayed through halving on its rounds: each rung\n" +
			"(after rounds 3, 6, 12, ...) decides on the rounds measured up to it, as the live run would, which targets\n" +
			"it drops; it prints the slices the halving run would have measured against the grid's and the picks.\n" +
			"The rounds are measurements: --seeds, --noise and --steady do not apply.",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if strategy != "halving" {
				return sweep.BadInput("strategy", "%q: only halving can be replayed (the run itself is the grid)", strategy)
			}
			return replayRun(stdout, args[0], opts, asJSON)
		},
	}
	cmd.Flags().StringVar(&strategy, "strategy", "halving", "the strategy to replay (halving)")
	cmd.Flags().IntVar(&opts.Seeds, "seeds", 0, "noisy replays to run (default 0: one replay of the run's own figures)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", 1, "first seed of the noisy replays")
	cmd.Flags().Var(noiseFlag{&opts}, "noise",
		"noise as a CV at a stated length, e.g. 5%@30s: scaled to each round's length as white noise (×√(30s/length)), finals too;\n"+
			"without a length (5% or 0.05) the noise of every screening round whatever its length, finals unperturbed\n"+
			"(default, or 0: measured from the run at each round's length: its per-second samples' windows and repetitions)")
	cmd.Flags().DurationVar(&opts.AssumedSteady, "steady", 0, "finals' measured phase for cells without samples.csv (default: the run's duration)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON document (fraction, agreement, rounds, picks)")
	return cmd
}

// noiseFlag is --noise: a share, optionally at a length (replay.ParseNoise).
type noiseFlag struct{ o *replay.Options }

func (f noiseFlag) String() string {
	if f.o == nil || f.o.NoiseCV == 0 {
		return "0"
	}
	if f.o.NoiseAt == 0 {
		return sweep.FormatShare(f.o.NoiseCV)
	}
	return sweep.FormatShare(f.o.NoiseCV) + "@" + f.o.NoiseAt.String()
}

func (f noiseFlag) Set(text string) error {
	cv, at, err := replay.ParseNoise(text)
	if err != nil {
		return err
	}
	f.o.NoiseCV, f.o.NoiseAt = cv, at
	return nil
}

func (noiseFlag) Type() string { return "share[@length]" }

func replayRun(w io.Writer, dir string, opts replay.Options, asJSON bool) error {
	run, err := results.LoadRun(dir)
	if err != nil {
		return reportInput(err)
	}
	if run.Schedule == sweep.ScheduleInterleaved {
		return replayRounds(w, run, opts, asJSON)
	}
	res, err := replay.Replay(run, opts)
	if errors.Is(err, replay.ErrNoNoise) {
		return sweep.BadInput("noise", "%v; give the noise of a short round, e.g. --noise 5%%", err)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return replay.WriteJSON(w, res)
	}
	return replay.WriteText(w, res)
}

// replayRounds replays an interleaved grid run through halving on its
// rounds: the rounds are measurements, so there is no noise to perturb
// them with and no steady state to assume.
func replayRounds(w io.Writer, run *results.Run, opts replay.Options, asJSON bool) error {
	switch {
	case opts.Seeds > 0 || opts.NoiseCV > 0:
		return sweep.BadInput("seeds", "an interleaved run is replayed on its own rounds, which carry their noise; drop {seeds} and {noise}")
	case opts.AssumedSteady > 0:
		return sweep.BadInput("steady", "an interleaved run's rounds have no steady state to assume; drop {steady}")
	case run.Strategy == sweep.StrategyHalving:
		return sweep.BadInput("strategy", "%s already ran halving on its rounds (see its rungs.json); replay the interleaved grid instead", run.Dir)
	}
	res, err := replay.Rounds(run, report.DefaultOptions())
	if err != nil {
		return err
	}
	if asJSON {
		return replay.WriteRoundsJSON(w, res)
	}
	return replay.WriteRoundsText(w, res)
}
