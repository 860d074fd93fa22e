package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/limit"
)

// searchFlagNames are the flags newSearchFlags defines.
var searchFlagNames = []string{"slo", "model", "start-level", "max-level", "factor", "max-steps", "db-service"}

// newSearchFlags defines the safe-limit search flags that sweep limit and
// run --find-limit share.
func newSearchFlags(fs *pflag.FlagSet) *sweep.FindLimit {
	f := &sweep.FindLimit{}
	fs.StringVar(&f.SLO, "slo", limit.DefaultSLO, "objective: success>=X%, error<=X%, avg|p50|p90|p95|p99<=N ms|s, comma-separated")
	fs.StringVar(&f.Model, "model", "", "what a level counts: vus (closed model) or rate (open, iterations/s); default: --load's kind")
	fs.IntVar(&f.Start, "start-level", 10, "first level of the ramp")
	fs.IntVar(&f.Max, "max-level", 10000, "highest level the ramp may reach")
	fs.Float64Var(&f.Factor, "factor", limit.DefaultFactor, "the ramp multiplies the level by this while the SLO holds")
	fs.IntVar(&f.MaxSteps, "max-steps", limit.DefaultMaxSteps, "measured levels at most, ramp and bisection together")
	fs.StringVar(&f.DBService, "db-service", "db", "the database's compose service, for the DB CPU row")
	return f
}

// findLimitFlags are run's --find-limit and the search flags.
type findLimitFlags struct {
	on     bool
	search *sweep.FindLimit
}

func newFindLimitFlags(fs *pflag.FlagSet) *findLimitFlags {
	f := &findLimitFlags{search: newSearchFlags(fs)}
	fs.BoolVar(&f.on, "find-limit", false, "search every cell's safe limit (as sweep limit does) instead of measuring one load; "+
		"cells/<id>/r<N>/limit.json holds the levels, the report a safe-limit matrix")
	return f
}

// resolveGrid resolves the spec of plan, run and check: the shared flags
// and config file, then the search.
func resolveGrid(cmd *cobra.Command, flags *specFlags, fl *findLimitFlags) (sweep.Spec, error) {
	spec, err := flags.resolve(cmd)
	if err != nil {
		return spec, err
	}
	return spec, fl.apply(cmd.Flags(), &spec)
}

// apply puts the search into spec, its model resolved; search flags
// without --find-limit are bad input, as is a search that does not parse.
func (f *findLimitFlags) apply(fs *pflag.FlagSet, spec *sweep.Spec) error {
	if !f.on {
		for _, name := range searchFlagNames {
			if fs.Changed(name) {
				return sweep.BadInput(name, "needs --find-limit")
			}
		}
		return nil
	}
	cfg, err := limit.ConfigOf(*f.search, spec.Load)
	if err != nil {
		return err
	}
	s := *f.search
	s.Model = string(cfg.Model)
	spec.FindLimit = &s
	return nil
}

// cellSearch is run --find-limit's Runner.Measure: on the cell the runner
// has just applied it searches the safe limit level by level (each level
// in levels/<model>-<level>/), writes limit.json beside result.json and
// keeps the safe level's figures in the cell's record.
type cellSearch struct {
	cfg       limit.Config
	dbService string
	runner    *sweep.Runner
	runID     string
	log       io.Writer // progress lines and each cell's table
}

// newCellSearch reads spec's search before anything starts; nil without
// one.
func newCellSearch(spec sweep.Spec) (*cellSearch, error) {
	if spec.FindLimit == nil {
		return nil, nil
	}
	cfg, err := limit.ConfigOf(*spec.FindLimit, spec.Load)
	if err != nil {
		return nil, err
	}
	return &cellSearch{cfg: cfg, dbService: spec.FindLimit.DBService}, nil
}

// hook binds the search to the run's runner and returns its Measure.
func (c *cellSearch) hook(runner *sweep.Runner, runID string, log io.Writer) func(context.Context, sweep.Job, string, *results.Record) error {
	c.runner, c.runID, c.log = runner, runID, log
	return c.measure
}

// measure searches job's cell; dir is its repetition's directory.
func (c *cellSearch) measure(ctx context.Context, job sweep.Job, dir string, rec *results.Record) error {
	job.Cell.Extras.Load = nil // the search sets the load of each level
	lj := limitJob{spec: c.runner.Spec, cell: job.Cell, cfg: c.cfg, dbService: c.dbService}
	lv := &levels{out: c.log, job: lj, runner: c.runner, dir: dir, applied: rec.Applied, recs: map[int]results.Record{}}
	start := time.Now()
	res, err := limit.Search(ctx, c.cfg, lv.measure)
	rec.PhasesS["search"] = time.Since(start).Round(time.Millisecond).Seconds()
	file := limitRecord{SchemaVersion: results.SchemaVersion, RunID: c.runID, Status: "done", Cell: job.Cell.Info(),
		Driver: c.runner.Driver.Name(), Result: res, Spec: c.runner.Spec.Redacted()}
	if errors.Is(err, sweep.ErrInterrupted) {
		file.Status = "interrupted"
	}
	werr := results.WriteJSONAtomic(filepath.Join(dir, limitFile), file)
	if err != nil {
		return errors.Join(err, werr)
	}
	if len(res.Levels) > 0 {
		fmt.Fprintf(c.log, "%s (%s):\n", job.Cell.ID, res.Stopped)
		werr = errors.Join(werr, limit.WriteTable(c.log, res))
	}
	return errors.Join(keepSafeLevel(rec, lv.recs, res), werr)
}

// keepSafeLevel puts the search's summary and the figures of the safe
// level into the cell's record. When no level held the SLO it keeps the
// lowest level's figures, with a warning; when that level's run failed,
// the cell fails with its reason.
func keepSafeLevel(rec *results.Record, recs map[int]results.Record, res limit.Result) error {
	sum := res.Summary()
	rec.SafeLimit = &sum
	level := sum.Level
	if level == 0 && len(res.Levels) > 0 {
		level = res.Levels[0].Level
	}
	lr, ok := recs[level]
	if !ok {
		return fmt.Errorf("search measured no level")
	}
	rec.Load, rec.Measurement = lr.Load, lr.Measurement
	rec.Resources, rec.DB, rec.Pooler, rec.Driver = lr.Resources, lr.DB, lr.Pooler, lr.Driver
	rec.Warnings = append(rec.Warnings, lr.Warnings...)
	for phase, s := range lr.PhasesS {
		if _, set := rec.PhasesS[phase]; !set {
			rec.PhasesS[phase] = s
		}
	}
	if sum.Level > 0 {
		return nil
	}
	if lr.Status == results.StatusFailed {
		return fmt.Errorf("%s=%d: %s", sum.Model, level, lr.Reason)
	}
	rec.Warnings = append(rec.Warnings, fmt.Sprintf("no level met the SLO %s; the figures are of the lowest level, %s=%d",
		sum.SLO, sum.Model, level))
	return nil
}
