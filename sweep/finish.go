package sweep

import (
	"context"
	"errors"
	"path/filepath"
	"sort"
	"time"

	"github.com/sweep-tool/sweep/results"
)

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
		if errors.Is(err, ErrRequestsFailed) {
			rec.Cause = results.CauseRequests
		}
		r.keep(r.saveTargetLog(ctx, dir))
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

// targetLogTimeout bounds reading a failed cell's target log, also
// after Ctrl-C.
const targetLogTimeout = 10 * time.Second

// saveTargetLog writes the target's log tail to target.log in dir.
func (r *Runner) saveTargetLog(ctx context.Context, dir string) error {
	st := r.current
	if st == nil {
		st = r.Stack
	}
	read := &CallTimeoutError{Call: "log read", Service: r.Spec.Service, Bound: targetLogTimeout, Of: OfTargetLog}
	logs, err := BoundedGet(context.WithoutCancel(ctx), read, func(ctx context.Context) (string, error) { return st.Logs(ctx, 200) })
	if err != nil {
		logs = "could not read the target's log: " + err.Error() + "\n"
	}
	return results.WriteFileAtomic(filepath.Join(dir, results.TargetLog), []byte(logs))
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
