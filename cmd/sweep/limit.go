package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/limit"
)

// limitOpts are the limit command's flags beyond the spec.
type limitOpts struct {
	web, pool  int
	from, cell string
	levels     string
	search     *sweep.FindLimit
}

// gridFlags are spec flags that mean nothing to limit; config files may
// still set them, so they stay, hidden from --help.
var gridFlags = []string{"web-mult", "db-mult", "repeat", "order", "seed", "retries", "max-failures", "cooldown", "load-levels"}

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
	flags := newSpecFlags(cmd.Flags())
	o := &limitOpts{}
	fs := cmd.Flags()
	fs.IntVar(&o.web, "web", 0, "the target's web threads (with --cpus and --pool)")
	fs.IntVar(&o.pool, "pool", 0, "the target's DB pool size (with --cpus and --web)")
	fs.StringVar(&o.from, "from", "", "take the spec and the configuration from this run directory (with --cell)")
	fs.StringVar(&o.cell, "cell", "", "the cell of --from's run to measure, e.g. cpu_2__web_3__db_4")
	o.search = newSearchFlags(fs)
	fs.StringVar(&o.levels, "levels", "", "measure exactly these increasing levels instead of searching, e.g. 10,20,40")
	for _, name := range gridFlags {
		_ = fs.MarkHidden(name)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		spec, cell, err := o.target(cmd, flags)
		if err != nil {
			return err
		}
		cfg, err := o.config(cmd, spec)
		if err != nil {
			return err
		}
		env := &runEnv{stdout: stdout, stderr: stderr, k6Path: flags.k6}
		return env.limit(cmd.Context(), limitJob{spec: spec, cell: cell, cfg: cfg, dbService: o.search.DBService})
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
	switch {
	case len(spec.CPUs) != 1:
		return spec, sweep.Cell{}, sweep.BadInput("cpus", "give one CPU limit, e.g. --cpus 2: limit measures one configuration")
	case o.web <= 0:
		return spec, sweep.Cell{}, sweep.BadInput("web", "give the web threads, e.g. --web 4 (or --from RUN_DIR --cell CELL_ID)")
	case o.pool <= 0:
		return spec, sweep.Cell{}, sweep.BadInput("pool", "give the DB pool size, e.g. --pool 8")
	}
	// multipliers that give exactly this cell, so the spec saved with the
	// result describes it
	spec.WebMult = []float64{float64(o.web) / spec.CPUs[0]}
	spec.DBMult = []float64{float64(o.pool) / float64(o.web)}
	return oneCell(spec)
}

// oneCell returns the spec's only cell; axes with several values are bad
// input, as limit measures one configuration.
func oneCell(spec sweep.Spec) (sweep.Spec, sweep.Cell, error) {
	cells := spec.Cells()
	if len(cells) != 1 {
		return spec, sweep.Cell{}, sweep.BadInput("cpus",
			"these settings give %d configurations; limit measures one (give one value per axis)", len(cells))
	}
	return spec, cells[0], nil
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
	if _, err := results.ReadMeta(o.from); err != nil {
		return sweep.Spec{}, sweep.Cell{}, sweep.BadInput("from", "%s is not a run directory: %v", o.from, err)
	}
	spec, err := savedSpec(cmd.Flags(), o.from, dsnFlags{db: flags.spec.DBDSN, pooler: flags.spec.PoolerDSN})
	if err != nil {
		return spec, sweep.Cell{}, err
	}
	cell, err := spec.FindCell(o.cell)
	if err != nil {
		return spec, cell, err
	}
	for name, set := range measurementFlags {
		if cmd.Flags().Changed(name) {
			set(&spec, flags.spec)
		}
	}
	spec.Out, spec.FindLimit = flags.spec.Out, nil
	spec.CPUs, spec.WebMult, spec.DBMult = []float64{cell.CPUs}, []float64{cell.Mults[0][0]}, []float64{cell.Mults[0][1]}
	return spec, cell, nil
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

// limitFile is the file a limit run writes into its directory.
const limitFile = "limit.json"

// limitJob is one safe-limit search: the spec, its one cell and the
// search config.
type limitJob struct {
	spec      sweep.Spec
	cell      sweep.Cell
	cfg       limit.Config
	dbService string
}

// limitRecord is limit.json: the search's result with what was measured.
type limitRecord struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	// Status is running, done or interrupted.
	Status string           `json:"status"`
	Cell   results.CellInfo `json:"cell"`
	Driver string           `json:"driver"`
	limit.Result
	Spec sweep.Spec `json:"spec"`
}

// limit checks everything, applies the cell once, runs the search, tears
// the stack down, writes limit.json and prints the table.
func (e *runEnv) limit(ctx context.Context, job limitJob) error {
	job.cell.Extras.Load = nil // the search sets the load of each level
	if err := job.spec.Validate(); err != nil {
		return err
	}
	driver, _, err := e.driver(ctx, job.spec)
	if err != nil {
		return err
	}
	e.runID = newRunID(time.Now())
	dir := job.spec.Out
	if dir == "" {
		dir = filepath.Join("runs", "limit-"+e.runID)
	}
	if hasFile(filepath.Join(dir, limitFile)) {
		return sweep.BadInput("out", "%s already holds a %s; choose another --out", dir, limitFile)
	}
	if err := results.CheckRunDir(dir, nil, 0); err != nil {
		return sweep.BadInput("out", "%v; choose another --out", err)
	}
	ses, err := e.open(ctx, job.spec, dir)
	if err != nil {
		return err
	}
	defer ses.close()
	rec := limitRecord{SchemaVersion: results.SchemaVersion, RunID: e.runID, Status: "running",
		Cell: job.cell.Info(), Driver: driver.Name(), Spec: job.spec.Redacted()}
	rec.SLO, rec.Config = job.cfg.SLO, job.cfg
	if err := results.WriteJSONAtomic(filepath.Join(dir, limitFile), rec); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "sweep: limit %s: %s, %s levels, SLO %s → %s\n", e.runID, job.cell.ID, job.cfg.Model, job.cfg.SLO, dir)
	defer e.guard(ses.stack)()
	rec.Result, err = e.search(ctx, job, dir, ses, driver)
	e.release(ctx, job.spec, ses.stack, err)
	return e.limitOutcome(dir, rec, err)
}

// search applies the cell once and measures the levels the search asks.
func (e *runEnv) search(ctx context.Context, job limitJob, dir string, ses *session, driver sweep.Driver) (limit.Result, error) {
	runner := &sweep.Runner{Spec: job.spec, RunID: e.runID, Dir: dir, Stack: ses.stack, Variants: e.variants,
		Driver: driver, Log: e.log, HostCPUs: e.hostCPUs, Prepare: ses.extras.prepare, Reset: ses.extras.resetFunc(),
		Monitor: ses.extras.monitor(e.allStacks(ses.stack), job.spec)}
	lv := &levels{out: e.stderr, job: job, runner: runner, dir: dir}
	if err := lv.apply(ctx); err != nil {
		return limit.Result{SLO: job.cfg.SLO, Config: job.cfg}, err
	}
	return limit.Search(ctx, job.cfg, lv.measure)
}

// levels measures the levels of one search on the applied cell.
type levels struct {
	out     io.Writer // one progress line per level
	job     limitJob
	runner  *sweep.Runner
	dir     string
	applied results.Applied
	steps   int
	broken  error                  // the target could not be applied again after a failed level
	recs    map[int]results.Record // the measured levels' records, when set
}

// apply (re)creates the target with the cell and waits until it is ready.
func (l *levels) apply(ctx context.Context) error {
	applied, err := l.runner.Setup(ctx, l.job.cell, filepath.Join(l.dir, "target"))
	switch {
	case ctx.Err() != nil:
		return sweep.ErrInterrupted
	case err != nil:
		return fmt.Errorf("apply %s: %w", l.job.cell.ID, err)
	}
	l.applied = applied
	return nil
}

// measure runs one level: warm-up and measured load on the applied
// target, the record written to levels/<model>-<level>. A failed level
// fails the SLO, and the target is applied again for the next one.
func (l *levels) measure(ctx context.Context, level int) (limit.Level, error) {
	if l.broken != nil {
		return limit.Level{}, l.broken
	}
	spec := l.job.spec
	spec.Load = l.job.cfg.Model.LoadSpec(level, spec.Load.MaxVUs)
	load := spec.LoadFor(l.job.cell, l.runner.Driver.Name())
	dir := filepath.Join(l.dir, "levels", fmt.Sprintf("%s-%d", l.job.cfg.Model, level))
	rec := l.runner.MeasureAt(ctx, l.job.cell, l.applied, load, dir)
	if rec.Status == results.StatusInterrupted || ctx.Err() != nil {
		return limit.Level{}, sweep.ErrInterrupted
	}
	l.steps++
	fmt.Fprintf(l.out, "sweep: %s step %d: %s=%d: %s %s\n", l.job.cell.ID, l.steps, l.job.cfg.Model, level, rec.Status, levelBrief(rec))
	if l.recs != nil {
		l.recs[level] = rec
	}
	if rec.Status == results.StatusFailed {
		l.broken = l.apply(ctx)
	}
	return limit.FromRecord(rec, l.job.spec.Service, l.job.dbService), nil
}

// levelBrief is a level's one-line summary for the progress lines.
func levelBrief(rec results.Record) string {
	if rec.Status != results.StatusOK {
		return sweep.OneLine(rec.Reason)
	}
	return fmt.Sprintf("%d requests, %.2f%% ok, p99 %.2f ms", rec.Requests, (1-rec.ErrorRate)*100, rec.LatencyMS.P99)
}

// limitOutcome writes limit.json, prints the table and maps the search's
// error to the command's.
func (e *runEnv) limitOutcome(dir string, rec limitRecord, searchErr error) error {
	rec.Status = "done"
	if errors.Is(searchErr, sweep.ErrInterrupted) {
		rec.Status = "interrupted"
		searchErr = fmt.Errorf("%w: the levels measured so far are in %s", sweep.ErrInterrupted, filepath.Join(dir, limitFile))
	}
	werr := results.WriteJSONAtomic(filepath.Join(dir, limitFile), rec)
	if len(rec.Levels) > 0 {
		if err := limit.WriteTable(e.stdout, rec.Result); err != nil {
			werr = errors.Join(werr, err)
		}
	}
	return errors.Join(searchErr, werr)
}

// hasFile reports whether path exists.
func hasFile(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
