package sweep

import (
	"context"

	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// Runner takes every cell of a plan through its lifecycle: apply the
// override, wait until ready, read the applied configuration back, warm up,
// measure, and write the record. Records are written atomically and last,
// so a cell with a result.json saying ok or failed is never run again.
type Runner struct {
	Spec   Spec
	RunID  string
	Dir    string // the run directory
	Stack  Stack
	Driver Driver
	// Log receives one timestamped line per event; nil discards.
	Log io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Summary is what a run did.
type Summary struct {
	Records []results.Record
	// Skipped counts cells already done by an earlier run of this directory.
	Skipped int
	// OverheadS is the mean orchestration time per cell (apply, ready,
	// read-back and write), in seconds.
	OverheadS float64
}

// Failed counts records whose status is failed.
func (s Summary) Failed() int {
	n := 0
	for _, r := range s.Records {
		if r.Status == results.StatusFailed {
			n++
		}
	}
	return n
}

// Run runs every cell not already done. It returns ErrInterrupted (with the
// summary so far) when ctx is cancelled.
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	var sum Summary
	cells := r.Spec.Cells()
	for i, cell := range cells {
		dir := results.CellDir(r.Dir, cell.ID, 1)
		if done(dir) {
			sum.Skipped++
			r.logf("cell %d/%d %s: already done, skipped", i+1, len(cells), cell.ID)
			continue
		}
		r.logf("cell %d/%d %s: start", i+1, len(cells), cell.ID)
		rec := r.runCell(ctx, cell, 1, dir)
		sum.Records = append(sum.Records, rec)
		r.logf("cell %d/%d %s: %s %s", i+1, len(cells), cell.ID, rec.Status, brief(rec))
		if rec.Status == results.StatusInterrupted {
			sum.OverheadS = overhead(sum.Records)
			return sum, ErrInterrupted
		}
	}
	sum.OverheadS = overhead(sum.Records)
	return sum, nil
}

// done reports whether dir holds a finished record.
func done(dir string) bool {
	rec, err := results.ReadRecord(filepath.Join(dir, results.ResultFile))
	return err == nil && rec.Status.Done()
}

func (r *Runner) runCell(ctx context.Context, cell Cell, rep int, dir string) results.Record {
	rec := r.newRecord(cell, rep)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return r.finish(ctx, &rec, dir, fmt.Errorf("create cell directory: %w", err))
	}
	err := r.phases(ctx, cell, dir, &rec)
	return r.finish(ctx, &rec, dir, err)
}

func (r *Runner) newRecord(cell Cell, rep int) results.Record {
	return results.Record{
		SchemaVersion: results.SchemaVersion,
		Cell: results.CellInfo{ID: cell.ID, CPUs: cell.CPUs, WebThreads: cell.WebThreads, DBPool: cell.DBPool,
			WebMult: cell.Mults[0][0], DBMult: cell.Mults[0][1], Mults: cell.Mults},
		Repetition: rep,
		Load:       r.Spec.LoadFor(cell, r.Driver.Name()),
		StartedAt:  r.now(),
		PhasesS:    map[string]float64{},
	}
}

// phases runs the lifecycle of one cell, timing each phase into rec.
func (r *Runner) phases(ctx context.Context, cell Cell, dir string, rec *results.Record) error {
	cfg := r.targetConfig(cell, dir)
	if err := r.timed(rec, "apply", func() error { return r.Stack.Apply(ctx, cfg) }); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	if err := r.timed(rec, "ready", func() error { return r.Stack.WaitReady(ctx, r.Spec.ReadyTimeout.Std()) }); err != nil {
		return fmt.Errorf("ready: %w", err)
	}
	err := r.timed(rec, "readback", func() error {
		applied, err := r.Stack.ReadBack(ctx)
		rec.Applied = applied
		if err != nil {
			return err
		}
		return checkApplied(cfg, applied, r.sweptEnv())
	})
	if err != nil {
		return fmt.Errorf("read back: %w", err)
	}
	return r.load(ctx, dir, rec)
}

// load runs the warm-up (discarded) and the measured phase.
func (r *Runner) load(ctx context.Context, dir string, rec *results.Record) error {
	req := LoadRequest{BaseURL: r.Spec.URL, Load: rec.Load, Dir: dir}
	if w := r.Spec.Warmup.Std(); w > 0 {
		warm := req
		warm.Warmup, warm.Duration = true, w
		if err := r.timed(rec, "warmup", func() error { _, err := r.Driver.Run(ctx, warm); return err }); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	req.Duration = r.Spec.Duration.Std()
	return r.timed(rec, "measure", func() error {
		m, err := r.Driver.Run(ctx, req)
		rec.Measurement = m
		if err != nil {
			return fmt.Errorf("measure: %w", err)
		}
		return nil
	})
}

func (r *Runner) targetConfig(cell Cell, dir string) TargetConfig {
	env := map[string]string{
		r.Spec.WebEnv:  fmt.Sprint(cell.WebThreads),
		r.Spec.PoolEnv: fmt.Sprint(cell.DBPool),
	}
	if r.Spec.NameEnv != "" {
		env[r.Spec.NameEnv] = cell.ID
	}
	return TargetConfig{Dir: dir, CPUs: cell.CPUs, Env: env, Labels: map[string]string{LabelCell: cell.ID}}
}

func (r *Runner) sweptEnv() []string {
	names := []string{r.Spec.WebEnv, r.Spec.PoolEnv}
	if r.Spec.NameEnv != "" {
		names = append(names, r.Spec.NameEnv)
	}
	return names
}

// checkApplied compares what the engine reports with what the cell asked.
func checkApplied(cfg TargetConfig, got results.Applied, names []string) error {
	var diffs []string
	if math.Abs(got.CPUs-cfg.CPUs) > 1e-6 {
		diffs = append(diffs, fmt.Sprintf("cpus %s, asked %s", FormatNumber(got.CPUs), FormatNumber(cfg.CPUs)))
	}
	for _, n := range names {
		if got.Env[n] != cfg.Env[n] {
			diffs = append(diffs, fmt.Sprintf("%s=%q, asked %q", n, got.Env[n], cfg.Env[n]))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("target runs with %s", strings.Join(diffs, ", "))
	}
	return nil
}

// finish sets the status, keeps the target's log on failure and writes
// result.json last.
func (r *Runner) finish(ctx context.Context, rec *results.Record, dir string, err error) results.Record {
	start := r.now()
	switch {
	case err == nil:
		rec.Status = results.StatusOK
	case ctx.Err() != nil:
		rec.Status, rec.Reason = results.StatusInterrupted, "interrupted: "+ctx.Err().Error()
	default:
		rec.Status, rec.Reason = results.StatusFailed, err.Error()
		r.saveTargetLog(dir)
	}
	rec.FinishedAt = r.now()
	rec.PhasesS["write"] = r.now().Sub(start).Seconds()
	if werr := results.WriteJSONAtomic(filepath.Join(dir, results.ResultFile), rec); werr != nil {
		r.logf("cell %s: %v", rec.Cell.ID, werr)
	}
	return *rec
}

func (r *Runner) saveTargetLog(dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	logs, err := r.Stack.Logs(ctx, 200)
	if err != nil {
		logs = "could not read the target's log: " + err.Error() + "\n"
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.TargetLog), []byte(logs)); err != nil {
		r.logf("%v", err)
	}
}

func (r *Runner) timed(rec *results.Record, phase string, f func() error) error {
	start := r.now()
	err := f()
	rec.PhasesS[phase] = math.Round(r.now().Sub(start).Seconds()*1000) / 1000
	return err
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) logf(format string, args ...any) {
	if r.Log == nil {
		return
	}
	fmt.Fprintf(r.Log, "%s %s\n", r.now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// brief is a one-line result for the log.
func brief(rec results.Record) string {
	if rec.Status != results.StatusOK {
		return rec.Reason
	}
	return fmt.Sprintf("rps=%.1f p99=%.2fms errors=%.2f%%", rec.RPS, rec.LatencyMS.P99, rec.ErrorRate*100)
}

// overhead is the mean orchestration time per cell.
func overhead(recs []results.Record) float64 {
	var total float64
	n := 0
	for _, rec := range recs {
		if rec.Status != results.StatusOK {
			continue
		}
		total += rec.PhasesS["apply"] + rec.PhasesS["ready"] + rec.PhasesS["readback"] + rec.PhasesS["write"]
		n++
	}
	if n == 0 {
		return 0
	}
	return total / float64(n)
}
