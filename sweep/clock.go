package sweep

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// timed runs f as the job's phase: the progress is told, the time kept.
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
