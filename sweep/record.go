package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func (r *Runner) targetConfig(cell Cell, dir string) TargetConfig {
	env := map[string]string{
		r.Spec.WebEnv:  fmt.Sprint(cell.WebThreads),
		r.Spec.PoolEnv: fmt.Sprint(cell.DBPool),
	}
	if r.Spec.NameEnv != "" {
		env[r.Spec.NameEnv] = cell.ID
	}
	cfg := TargetConfig{Dir: dir, CPUs: cell.CPUs, CPUSet: r.Spec.CPUSet, Memory: cell.Extras.Memory,
		Env: env, Labels: map[string]string{LabelCell: cell.ID}}
	for _, a := range r.Spec.Axes {
		v, ok := cell.Extras.Env[a.Key()]
		switch {
		case !ok:
		case a.Service == "" || a.Service == r.Spec.Service:
			env[a.Name] = v
		default:
			if cfg.ServiceEnv == nil {
				cfg.ServiceEnv = map[string]map[string]string{}
			}
			if cfg.ServiceEnv[a.Service] == nil {
				cfg.ServiceEnv[a.Service] = map[string]string{}
			}
			cfg.ServiceEnv[a.Service][a.Name] = v
		}
	}
	return cfg
}

func (r *Runner) sweptEnv() []string { return r.Spec.SweptEnv() }

// checkApplied compares what the engine reports with what the cell asked.
func checkApplied(cfg TargetConfig, got results.Applied, names []string) error {
	var diffs []string
	if want, _ := MemoryBytes(cfg.Memory); cfg.Memory != "" && got.MemoryBytes != want {
		diffs = append(diffs, fmt.Sprintf("memory %d bytes, asked %s", got.MemoryBytes, cfg.Memory))
	}
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
// result.json last. A run file that cannot be written (err, target.log or
// result.json itself) stops the run: the record is marked interrupted, so
// it runs again on resume, and r.lost holds the write error.
func (r *Runner) finish(ctx context.Context, rec *results.Record, dir string, err error) results.Record {
	start := r.now()
	var lost *results.WriteError
	var skipped errSkipped
	switch {
	case err == nil:
		rec.Status = results.StatusOK
	case errors.As(err, &skipped):
		rec.Status, rec.Reason = results.StatusSkipped, skipped.Reason()
	case errors.As(err, &lost):
		r.lost = lost
		rec.Status, rec.Reason = results.StatusInterrupted, "run stopped: "+lost.Error()
	case ctx.Err() != nil:
		rec.Status, rec.Reason = results.StatusInterrupted, "interrupted: "+ctx.Err().Error()
	default:
		rec.Status, rec.Reason = results.StatusFailed, err.Error()
		r.keep(r.saveTargetLog(dir))
	}
	rec.FinishedAt = r.now()
	rec.PhasesS["write"] = r.now().Sub(start).Seconds()
	if werr := results.WriteJSONAtomic(filepath.Join(dir, results.ResultFile), rec); werr != nil {
		r.keep(werr)
		rec.Status, rec.Reason = results.StatusInterrupted, "record not written: "+werr.Error()
	}
	return *rec
}

// keep notes the first write error of the run in r.lost.
func (r *Runner) keep(err error) {
	var we *results.WriteError
	if r.lost == nil && errors.As(err, &we) {
		r.lost = we
	}
}

// saveTargetLog writes the target's log tail to target.log in dir.
func (r *Runner) saveTargetLog(dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := r.current
	if st == nil {
		st = r.Stack
	}
	logs, err := st.Logs(ctx, 200)
	if err != nil {
		logs = "could not read the target's log: " + err.Error() + "\n"
	}
	return results.WriteFileAtomic(filepath.Join(dir, results.TargetLog), []byte(logs))
}

func (r *Runner) timed(job Job, rec *results.Record, phase string, f func() error) error {
	if r.Progress != nil {
		r.Progress.Phase(job, phase)
	}
	start := r.now()
	err := f()
	rec.PhasesS[phase] = math.Round(r.now().Sub(start).Seconds()*1000) / 1000
	return err
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) {
	if r.Sleep != nil {
		r.Sleep(ctx, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
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

// overhead is the median orchestration time per ok cell (the median
// keeps the first cell, which brings the whole stack up, from skewing it).
func overhead(recs []results.Record) float64 {
	var xs []float64
	for _, rec := range recs {
		if rec.Status == results.StatusOK {
			xs = append(xs, rec.PhasesS["apply"]+rec.PhasesS["ready"]+rec.PhasesS["readback"]+rec.PhasesS["write"])
		}
	}
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}
