package main

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/session"
	"github.com/sweep-tool/sweep/strategy/limit"
	"github.com/sweep-tool/sweep/sweep"
)

// limitOpts are the limit command's flags beyond the spec.
type limitOpts struct {
	web, pool  int
	from, cell string
	levels     string
	search     *sweep.FindLimit
}

func newLimitCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "limit",
		Short: "Find the highest load at which one configuration meets an SLO (its safe limit)",
		Long: "limit applies one configuration (--cpus C --web W --pool P, or --from RUN_DIR --cell CELL_ID) once,\n" +
			"then measures load levels: from --start-level up by --factor while the SLO holds, then bisecting\n" +
			"between the last passing and the first failing level, at most --max-steps levels in all (or exactly\n" +
			"--levels). It prints the study's table and the safe limit and writes <out>/limit.json.\n" +
			"Levels are VUs (--model vus) or iterations/s (--model rate).",
		Args: cobra.NoArgs,
	}
	flags := newSpecFlags(cmd.Flags(), cmdLimit)
	o := &limitOpts{}
	fs := cmd.Flags()
	fs.IntVar(&o.web, "web", 0, "the target's web threads (with --cpus and --pool; required without --from)")
	fs.IntVar(&o.pool, "pool", 0, "the target's DB pool size, in connections (with --cpus and --web; required without --from)")
	fs.StringVar(&o.from, "from", "", "take the spec and the configuration from this run directory (with --cell; default: none)")
	fs.StringVar(&o.cell, "cell", "", "the cell of --from's run to measure, e.g. cpu_2__web_3__db_4 (required with --from)")
	o.search = newSearchFlags(fs)
	fs.StringVar(&o.levels, "levels", "", "measure exactly these increasing levels instead of searching, in --model's unit, e.g. 10,20,40 "+
		"(default: search)")
	inGroup(fs, groupGrid, "web", "pool", "from", "cell")
	inGroup(fs, groupSearch, append(searchFlagNames, "levels")...)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, cell, err := o.target(cmd, flags)
		if err != nil {
			return err
		}
		cfg, err := o.config(cmd, spec)
		if err != nil {
			return err
		}
		return findLimit(cmd.Context(), spec, cell, cfg, session.Options{K6: flags.k6, Env: envOf(cmd.Context())}, o.search.DBService, stdout, stderr)
	}
	return cmd
}

// config builds the search from the flags; model follows --load's kind
// unless --model is given.
func (o *limitOpts) config(cmd *cobra.Command, spec sweep.Spec) (limit.Config, error) {
	f := *o.search
	if cmd.Flags().Changed("levels") {
		var err error
		if f.Levels, err = limit.ParseLevels(o.levels); err != nil {
			return limit.Config{}, err
		}
	}
	return limit.ConfigOf(f, spec.Load)
}

// target resolves the spec and the one cell to measure.
func (o *limitOpts) target(cmd *cobra.Command, flags *specFlags) (sweep.Spec, sweep.Cell, error) {
	if o.from != "" {
		return o.fromRun(cmd, flags)
	}
	if o.cell != "" {
		return sweep.Spec{}, sweep.Cell{}, sweep.BadInput("cell", "needs --from RUN_DIR")
	}
	spec, err := flags.resolve(cmd)
	if err != nil {
		return spec, sweep.Cell{}, err
	}
	return spec.OneConfig(o.web, o.pool)
}

// fromRun takes the spec and the cell from an earlier run; the flags that
// shape a measurement (durations, driver, output) may still be given.
func (o *limitOpts) fromRun(cmd *cobra.Command, flags *specFlags) (sweep.Spec, sweep.Cell, error) {
	for _, name := range []string{"cpus", "web", "pool", "config", "compose", "service", "url"} {
		if cmd.Flags().Changed(name) {
			return sweep.Spec{}, sweep.Cell{}, sweep.BadInput(name, "comes from the run given with --from; drop it")
		}
	}
	if o.cell == "" {
		return sweep.Spec{}, sweep.Cell{}, sweep.BadInput("cell", "--from needs --cell CELL_ID")
	}
	dsns := dsnFlags{db: flags.spec.DBDSN, pooler: flags.spec.PoolerDSN}
	dsnsFromEnv(cmd, &dsns.db, &dsns.pooler)
	spec, cell, err := session.FromRun(dsns.of(o.from), o.cell, func(spec *sweep.Spec) {
		for name, set := range measurementFlags {
			if cmd.Flags().Changed(name) {
				set(spec, flags.spec)
			}
		}
	})
	spec.Out = flags.spec.Out
	return spec, cell, err
}

// measurementFlags copy a flag given with --from over the run's spec.
var measurementFlags = map[string]func(dst *sweep.Spec, src sweep.Spec){
	"warmup":        func(d *sweep.Spec, s sweep.Spec) { d.Warmup = s.Warmup },
	"duration":      func(d *sweep.Spec, s sweep.Spec) { d.Duration = s.Duration },
	"driver":        func(d *sweep.Spec, s sweep.Spec) { d.Driver = s.Driver },
	"ready-timeout": func(d *sweep.Spec, s sweep.Spec) { d.ReadyTimeout = s.ReadyTimeout },
	"keep":          func(d *sweep.Spec, s sweep.Spec) { d.Keep = s.Keep },
	"cpuset":        func(d *sweep.Spec, s sweep.Spec) { d.CPUSet = s.CPUSet },
	"max-vus":       func(d *sweep.Spec, s sweep.Spec) { d.Load.MaxVUs = s.Load.MaxVUs },
	"db-reset-sql":  func(d *sweep.Spec, s sweep.Spec) { d.DBResetSQL = s.DBResetSQL },
}

// findLimit opens a limit session of spec, searches cell's safe limit and
// prints the levels' table.
func findLimit(ctx context.Context, spec sweep.Spec, cell sweep.Cell, cfg limit.Config, opts session.Options,
	dbService string, stdout, stderr io.Writer) error {
	opts.Notify = tell(stderr)
	s, err := session.OpenLimit(ctx, spec, opts)
	if err != nil {
		return err
	}
	defer closeSession(s, stderr)
	defer guard(s, stderr)()
	res, err := s.Limit(ctx, cell, cfg, dbService)
	if len(res.Levels) > 0 {
		err = errors.Join(err, limit.WriteTable(stdout, res))
	}
	return err
}
