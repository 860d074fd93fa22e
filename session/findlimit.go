package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/limit"
	"github.com/sweep-tool/sweep/sweep"
)

// cellSearch is a run's per-cell safe-limit search (the spec's
// FindLimit), as the runner's Measure: on the cell the runner has just
// applied it searches the safe limit level by level (each level in
// levels/<model>-<level>/), writes limit.json beside result.json and
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
	lv := &levels{notify: c.logLevel, cell: job.Cell, cfg: c.cfg, dbService: c.dbService, runner: c.runner,
		dir: dir, applied: rec.Applied, recs: map[int]results.Record{}}
	start := time.Now()
	res, err := limit.Search(ctx, c.cfg, lv.measure)
	rec.PhasesS["search"] = time.Since(start).Round(time.Millisecond).Seconds()
	file := limit.NewFile(c.runID, c.runner.Spec, job.Cell, c.runner.Driver.Name(), c.cfg)
	file.Result, file.Status = res, limit.StatusDone
	if errors.Is(err, sweep.ErrInterrupted) {
		file.Status = limit.StatusInterrupted
	}
	werr := file.Write(dir)
	if err != nil {
		return errors.Join(err, werr)
	}
	if len(res.Levels) > 0 {
		fmt.Fprintf(c.log, "%s (%s):\n", job.Cell.ID, res.Stopped)
		werr = errors.Join(werr, limit.WriteTable(c.log, res))
	}
	return errors.Join(keepSafeLevel(rec, lv.recs, res), werr)
}

// logLevel writes a measured level's line to sweep.log.
func (c *cellSearch) logLevel(e Event) {
	if l, ok := e.(LevelMeasured); ok {
		fmt.Fprintf(c.log, "sweep: %s\n", l)
	}
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
	rec.Adopt(lr)
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
