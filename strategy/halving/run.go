package halving

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// Run measures r.Spec's cells by successive halving with plan p and
// returns what the runner did. Each screening round runs its cells
// through r as jobs of the round's fidelity (one repetition, records in
// cells/<id>/round<k>), then Select over the round's records names the
// next round's cells; the final round measures the survivors
// spec.Repeat times at its full length (stopped at a steady state when
// the spec sets a precision), in the repetition folders the report
// analyses. Every selection is recomputed from the records on disk (a
// later round's with round 1's, whose spans normalise the balanced score),
// so
// running again in the same directory (a resume) skips what is done and
// goes on in the round it stopped in. Errors are the runner's
// (sweep.ErrInterrupted, ...), a bad plan's, or a round's records that
// cannot be read.
func Run(ctx context.Context, r *sweep.Runner, p Plan, opts report.Options) (sweep.Summary, error) {
	var total sweep.Summary
	if err := p.Validate(); err != nil {
		return total, err
	}
	// Baseline cells are not screened: the gains need them measured in
	// full, beside the finals.
	cells := r.Spec.Cells()
	baselines := slices.DeleteFunc(slices.Clone(cells), func(c sweep.Cell) bool { return !c.Baseline })
	cells = slices.DeleteFunc(cells, func(c sweep.Cell) bool { return c.Baseline })
	var first, screened []Measurement
	var band float64
	last := len(p.Rounds)
	for k, round := range p.Rounds[:last-1] {
		fid := screenFidelity(round, k+1)
		jobs := sweep.Schedule(cells, 1, r.Spec.Order, r.Spec.Seed)
		for i := range jobs {
			jobs[i].Fidelity, jobs[i].Screening = fid, true
		}
		if err := runJobs(ctx, r, jobs, &total); err != nil {
			return total, err
		}
		ms, err := measurements(r.Dir, jobs)
		if err != nil {
			return total, err
		}
		sel, err := Select(ms, SelectOptions{Keep: round.Keep, Report: opts, First: first})
		if err != nil {
			return total, err
		}
		if first == nil {
			first = ms
		}
		screened, band = ms, sel.Band
		logf(r, "round %d of %d: %d cells measured, %d kept (noise band %.1f %%)", k+1, last, len(ms), len(sel.Keep), 100*sel.Band)
		cells = slices.DeleteFunc(cells, func(c sweep.Cell) bool { return !slices.Contains(sel.Keep, c.ID) })
	}
	cells = append(cells, baselines...)
	final := p.Rounds[last-1]
	fid := finalFidelity(r.Spec, final, last)
	jobs := sweep.Schedule(cells, r.Spec.Repeat, r.Spec.Order, r.Spec.Seed)
	for i := range jobs {
		jobs[i].Fidelity = fid
	}
	logf(r, "final round %d: %d cells", last, len(cells))
	finalists := slices.DeleteFunc(slices.Clone(screened), func(m Measurement) bool {
		return !slices.ContainsFunc(cells, func(c sweep.Cell) bool { return c.ID == m.Cell.ID })
	})
	r.Rivals = finalRivals(r.Dir, finalists, band, max(1, r.Spec.Repeat))
	defer func() { r.Rivals = nil }()
	return total, runJobs(ctx, r, jobs, &total)
}

// finalRivals is the finals' Runner.Rivals: Rivals of each job's cell,
// a rival's final known once a repetition of it finished ok on disk.
func finalRivals(dir string, finalists []Measurement, band float64, repeat int) func(sweep.Job) []steady.Rival {
	return func(job sweep.Job) []steady.Rival {
		return Rivals(job.Cell.ID, finalists, band, func(id string) (steady.Span, steady.Span, bool) {
			return finalIntervals(dir, id, repeat)
		})
	}
}

// Rivals are the cells the final of cell id is ranked against: the other
// finalists of its slice at its CPU limit (the pairs the report ranks it
// with there), each as known when its final starts: its own final's
// intervals once measured (final: its RPS and p99 spans, false while it
// has none), else the last screen's figures within that round's band
// (Around: ± band/2, as the report takes a figure measured once). So a
// final measures until it can be ranked against every pair it competes
// with, or to its longest; a baseline cell (never screened) and a lone
// finalist have no rivals and run by the spec's own rule. The halving run
// and its replay (strategy/replay) both rank this way.
func Rivals(id string, finalists []Measurement, band float64, final func(id string) (rps, p99 steady.Span, ok bool)) []steady.Rival {
	i := slices.IndexFunc(finalists, func(m Measurement) bool { return m.Cell.ID == id })
	if i < 0 {
		return nil
	}
	self := finalists[i].Cell
	var out []steady.Rival
	for _, m := range finalists {
		if m.Cell.ID == self.ID || m.Cell.Slice() != self.Slice() || m.Cell.CPUs != self.CPUs {
			continue
		}
		rival := steady.Rival{ID: m.Cell.ID, RPS: steady.Around(m.RPS, band/2), P99: steady.Around(m.P99MS, band/2)}
		if rps, p99, ok := final(m.Cell.ID); ok {
			rival.RPS, rival.P99 = rps, p99
		}
		out = append(out, rival)
	}
	return out
}

// finalIntervals are the intervals of a cell's first repetition (of
// repeat) that finished ok with a series long enough for them; false when
// it has none. A record or series it cannot read counts as not measured
// yet: the report, which reads them too, says what is wrong with them.
func finalIntervals(dir, id string, repeat int) (rps, p99 steady.Span, ok bool) {
	for rep := 1; rep <= repeat; rep++ {
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, id, rep), results.ResultFile))
		if err != nil || rec.Status != results.StatusOK {
			continue
		}
		series, err := results.ReadIntervals(filepath.Join(results.CellDir(dir, id, rep), results.SamplesFile))
		if err != nil {
			continue
		}
		if rps, p99, ok = steady.Intervals(series); ok {
			return rps, p99, true
		}
	}
	return rps, p99, false
}

// runJobs runs one round's jobs through r, adding what it did to total.
// A round without jobs (nothing survived) runs nothing: r.Jobs left empty
// would mean the whole grid.
func runJobs(ctx context.Context, r *sweep.Runner, jobs []sweep.Job, total *sweep.Summary) error {
	if len(jobs) == 0 {
		return nil
	}
	r.Jobs = jobs
	sum, err := r.Run(ctx)
	total.Add(sum)
	return err
}

// measurements reads the records of one screening round's jobs. A job
// without a finished record (the runner was stopped) is an error, as
// selecting over a part of a round would drop cells unmeasured.
func measurements(dir string, jobs []sweep.Job) ([]Measurement, error) {
	ms := make([]Measurement, 0, len(jobs))
	for _, j := range jobs {
		rec, err := results.ReadRecord(filepath.Join(j.Dir(dir), results.ResultFile))
		if errors.Is(err, fs.ErrNotExist) || err == nil && !rec.Status.Done() {
			return nil, fmt.Errorf("round %d: %s has no finished record", j.Fidelity.Round, j.Cell.ID)
		}
		if err != nil {
			return nil, fmt.Errorf("round %d: %w", j.Fidelity.Round, err)
		}
		series, err := results.ReadIntervals(filepath.Join(j.Dir(dir), results.SamplesFile))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("round %d: %w", j.Fidelity.Round, err)
		}
		ms = append(ms, Measurement{Cell: rec.Cell, Status: rec.Status, RPS: rec.RPS, P99MS: rec.LatencyMS.P99,
			ErrorRate: rec.ErrorRate, Round: j.Fidelity.Round, DurationS: rec.DurationS, Noise: SeriesNoise(series)})
	}
	return ms, nil
}

func logf(r *sweep.Runner, format string, args ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, "%s halving: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
}
