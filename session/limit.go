package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/limit"
	"github.com/sweep-tool/sweep/sweep"
)

// OpenLimit opens a safe-limit search's run: it checks the spec and the
// load driver, decides the directory (the spec's, or runs/limit-<id>),
// which must hold no limit.json yet, then builds the stacks and takes
// the lock as Open does. No sweep.json is written: limit.json is the
// run's file.
func OpenLimit(ctx context.Context, spec sweep.Spec, opts Options) (_ *Session, err error) {
	s := &Session{spec: spec, opts: opts}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if spec.Parallel != 0 {
		return nil, sweep.BadInput("parallel", "a safe-limit search measures one configuration on one stack; drop {parallel} (place the services with {place})")
	}
	if s.driver, _, err = s.pickDriver(ctx); err != nil {
		return nil, err
	}
	s.runID = results.NewRunID(time.Now())
	s.dir = spec.Out
	if s.dir == "" {
		s.dir = filepath.Join("runs", "limit-"+s.runID)
	}
	if _, err := os.Stat(filepath.Join(s.dir, limit.FileName)); err == nil {
		return nil, sweep.BadInput("out", "%s already holds a %s; choose another {out}", s.dir, limit.FileName)
	}
	if err := results.CheckRunDir(s.dir, nil, 0); err != nil {
		return nil, sweep.BadInput("out", "%v; choose another {out}", err)
	}
	if err := s.open(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Limit applies cell once and searches its safe limit as cfg says,
// level by level (each level's record in levels/<model>-<level>/),
// writing limit.json before the first level and at the end, then tears
// the stacks down. dbService names the database's service, for its CPU.
// An interrupted search returns sweep.ErrInterrupted with the levels
// measured so far in the result and in limit.json.
func (s *Session) Limit(ctx context.Context, cell sweep.Cell, cfg limit.Config, dbService string) (limit.Result, error) {
	cell.Extras.Load = nil // the search sets the load of each level
	file := limit.NewFile(s.runID, s.spec, cell, s.driver.Name(), cfg)
	if err := file.Write(s.dir); err != nil {
		return file.Result, err
	}
	s.notify(LimitStarted{RunID: s.runID, Cell: cell.ID, Model: string(cfg.Model), SLO: cfg.SLO.String(), Dir: s.dir})
	res, err := s.searchOnce(ctx, cell, cfg, dbService)
	s.release(ctx, err)
	file.Result, file.Status = res, limit.StatusDone
	if errors.Is(err, sweep.ErrInterrupted) {
		file.Status = limit.StatusInterrupted
		err = fmt.Errorf("%w: the levels measured so far are in %s", sweep.ErrInterrupted, filepath.Join(s.dir, limit.FileName))
	}
	return res, errors.Join(err, file.Write(s.dir))
}

// searchOnce applies the cell once and measures the levels the search asks.
func (s *Session) searchOnce(ctx context.Context, cell sweep.Cell, cfg limit.Config, dbService string) (limit.Result, error) {
	lv := &levels{notify: s.notify, cell: cell, cfg: cfg, dbService: dbService, runner: s.runner(), dir: s.dir}
	if err := lv.apply(ctx); err != nil {
		return limit.Result{SLO: cfg.SLO, Config: cfg}, err
	}
	return limit.Search(ctx, cfg, lv.measure)
}

// levels measures the levels of one search on the applied cell.
type levels struct {
	notify    func(Event) // told each measured level
	cell      sweep.Cell
	cfg       limit.Config
	dbService string
	runner    *sweep.Runner
	dir       string
	applied   results.Applied
	steps     int
	broken    error                  // the target could not be applied again after a failed level
	recs      map[int]results.Record // the measured levels' records, when set
}

// apply (re)creates the target with the cell and waits until it is ready.
func (l *levels) apply(ctx context.Context) error {
	applied, err := l.runner.Setup(ctx, l.cell, filepath.Join(l.dir, "target"))
	switch {
	case ctx.Err() != nil:
		return sweep.ErrInterrupted
	case err != nil:
		return fmt.Errorf("apply %s: %w", l.cell.ID, err)
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
	spec := l.runner.Spec
	spec.Load = l.cfg.Model.LoadSpec(level, spec.Load.MaxVUs)
	load := spec.LoadFor(l.cell, l.runner.Driver.Name())
	dir := filepath.Join(l.dir, "levels", fmt.Sprintf("%s-%d", l.cfg.Model, level))
	rec := l.runner.MeasureAt(ctx, l.cell, l.applied, load, dir)
	if rec.Status == results.StatusInterrupted || ctx.Err() != nil {
		return limit.Level{}, sweep.ErrInterrupted
	}
	l.steps++
	l.notify(LevelMeasured{Cell: l.cell.ID, Step: l.steps, Model: string(l.cfg.Model), Level: level, Record: rec})
	if l.recs != nil {
		l.recs[level] = rec
	}
	if rec.Status == results.StatusFailed {
		l.broken = l.apply(ctx)
	}
	return limit.FromRecord(rec, limit.StackOf(l.runner.Spec, l.dbService)), nil
}
