package replay

import (
	"cmp"
	"errors"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// cell is one planned cell of the run as the replay needs it: what the
// grid measured (the truth a round perturbs) and what its phases cost.
type cell struct {
	rc     results.RunCell
	info   results.CellInfo
	slice  string
	status results.Status
	// rps, p99 and errorRate are the means over the ok repetitions.
	rps, p99, errorRate float64
	// gridS is one repetition's wall time (mean over repetitions);
	// overheadS, warmupS and measureS its parts.
	gridS, overheadS, warmupS, measureS float64
	// series is the first ok repetition's per-second series; nil without
	// samples.csv.
	series []results.Interval
	// repRPS and repP99 are every ok repetition's figures, for the noise.
	repRPS, repP99 []float64
}

// cellsOf reads the run's finished cells; cells with no finished
// repetition are left out (a replay is of what the grid measured).
func cellsOf(run *results.Run) ([]*cell, []string, error) {
	var out []*cell
	var notes []string
	for _, rc := range run.Cells {
		if len(rc.Reps) == 0 {
			continue
		}
		c := &cell{rc: rc, info: rc.CellInfo, slice: rc.Slice(), status: results.StatusFailed}
		var times, over, warm, meas, errs []float64
		for _, r := range rc.Reps {
			total, w, m := phaseTimes(r.Record)
			times, over, warm, meas = append(times, total), append(over, total-w-m), append(warm, w), append(meas, m)
			if r.Status != results.StatusOK {
				continue
			}
			c.status = results.StatusOK
			c.repRPS, c.repP99 = append(c.repRPS, r.RPS), append(c.repP99, r.LatencyMS.P99)
			errs = append(errs, r.ErrorRate)
			if c.series == nil {
				s, err := seriesOf(run.Dir, rc.ID, r.Repetition)
				if err != nil {
					return nil, nil, err
				}
				c.series = s
			}
		}
		c.rps, c.p99, c.errorRate = mean(c.repRPS), mean(c.repP99), mean(errs)
		c.gridS, c.overheadS, c.warmupS, c.measureS = mean(times), mean(over), mean(warm), mean(meas)
		out = append(out, c)
	}
	if len(out) < len(run.Cells) {
		notes = append(notes, strconv.Itoa(len(run.Cells)-len(out))+" planned cells never finished and are left out")
	}
	return out, notes, nil
}

// phaseTimes returns a repetition's wall time, warm-up and measured phase
// in seconds, from phases_s, else from its timestamps and duration. The
// phases are added in the order of their names: a map's order changes
// from call to call, and so would the sum's last digits.
func phaseTimes(r results.Record) (total, warmup, measure float64) {
	for _, k := range slices.Sorted(maps.Keys(r.PhasesS)) {
		total += r.PhasesS[k]
	}
	warmup, measure = r.PhasesS["warmup"], r.PhasesS["measure"]
	if len(r.PhasesS) == 0 {
		total = r.FinishedAt.Sub(r.StartedAt).Seconds()
		measure = min(total, r.DurationS)
	}
	return max(total, 0), warmup, measure
}

// seriesOf reads a repetition's samples.csv; nil when there is none or it
// holds no driver column values.
func seriesOf(dir, id string, rep int) ([]results.Interval, error) {
	s, err := results.ReadIntervals(filepath.Join(results.CellDir(dir, id, rep), results.SamplesFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return s, err
}

// gridShape returns the run's warm-up and measured duration: the median
// over cells, rounded to the second.
func gridShape(cells []*cell) (warmup, duration time.Duration) {
	var w, d []float64
	for _, c := range cells {
		w, d = append(w, c.warmupS), append(d, c.measureS)
	}
	return seconds(median(w)), seconds(median(d))
}

// finalS is how long a finalist's measured phase would have lasted under
// the steady-state rule, and whether it came from the cell's own series.
func (c *cell) finalS(cfg steady.Config, assumed time.Duration) (float64, bool) {
	if len(c.series) == 0 {
		return min(assumed.Seconds(), cfg.MaxDuration.Seconds()), false
	}
	return steady.Scan(c.series, cfg).ElapsedS, true
}

// upTo is the cell's series up to s seconds into its phase.
func (c *cell) upTo(s float64) []results.Interval {
	n, _ := slices.BinarySearchFunc(c.series, s, func(iv results.Interval, t float64) int {
		return cmp.Compare(iv.T, t+0.05)
	})
	return c.series[:n]
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s)) * time.Second }

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
