package report

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// MinControls is the fewest finished control measurements the run's
// noise is measured from (sweep.MinControls, the fewest a run measures);
// with fewer the report keeps the assumed band (Options.NoiseBand) and
// says so.
const MinControls = sweep.MinControls

// Noise is the run's noise: the band within which two single
// measurements of one cell are not told apart, per metric, and where it
// came from. Measured, it is z₉₇.₅ × √2 × the coefficient of variation of
// one measurement (RPSCV, P99CV), so two measurements of the same cell
// fall within it of each other in about 95 % of pairs; assumed, it is
// Options.NoiseBand for both.
type Noise struct {
	// Measured is true when the bands come from the run's control cell.
	Measured bool `json:"measured"`
	// Control is the control cell and Controls its finished ok
	// measurements; Repeated counts the cells whose repetitions were
	// pooled with them.
	Control  string `json:"control,omitempty"`
	Controls int    `json:"controls"`
	Repeated int    `json:"repeated_cells,omitempty"`
	// RPSCV and P99CV are one measurement's coefficients of variation
	// (measured only); RPS and P99 the bands (relative, full width, as
	// Options.NoiseBand).
	RPSCV float64 `json:"rps_cv,omitempty"`
	P99CV float64 `json:"p99_cv,omitempty"`
	RPS   float64 `json:"rps_band"`
	P99   float64 `json:"p99_band"`
	// Why says why the noise is assumed ("" when measured).
	Why string `json:"why_assumed,omitempty"`
}

// bandOf is the band of a coefficient of variation: two measurements of
// one figure, each off by cv, differ by cv × √2, within z₉₇.₅ of that in
// 95 % of pairs.
func bandOf(cv float64) float64 { return z95 * math.Sqrt2 * cv }

// assumedNoise is the band opts assume, with why.
func assumedNoise(opts Options, why string) Noise {
	return Noise{RPS: opts.NoiseBand, P99: opts.NoiseBand, Why: why}
}

// controlSeries returns the run's repeated control measurements on one
// stack (Control.Seq from 1) of the cell that has most, in their order,
// every one finished (failed ones too: drift reads the ok ones).
func controlSeries(run *results.Run) (string, []results.Control) {
	id, best := "", []results.Control(nil)
	for _, rc := range run.Cells {
		var seq []results.Control
		for _, c := range rc.Controls {
			if c.Seq > 0 {
				seq = append(seq, c)
			}
		}
		if len(seq) > len(best) {
			id, best = rc.ID, seq
		}
	}
	slices.SortFunc(best, func(a, b results.Control) int { return a.Seq - b.Seq })
	return id, best
}

// okFigures returns the RPS and p99 of the ok controls.
func okFigures(cs []results.Control) (rps, p99 []float64) {
	for _, c := range cs {
		if c.Status == results.StatusOK {
			rps, p99 = append(rps, c.RPS), append(p99, c.LatencyMS.P99)
		}
	}
	return rps, p99
}

// runNoise measures the run's noise from its control cell, pooled with
// the spread of every cell measured twice or more (weighted by RPS, as
// confidence.PooledNoise does); with fewer than MinControls ok controls
// it is opts' assumed band, saying why.
func runNoise(run *results.Run, opts Options) Noise {
	id, series := controlSeries(run)
	rps, p99 := okFigures(series)
	switch {
	case len(series) == 0:
		return assumedNoise(opts, "")
	case len(rps) < MinControls:
		return assumedNoise(opts, fmt.Sprintf("only %d control runs of %s finished ok, %d are needed to measure it",
			len(rps), id, MinControls))
	}
	cvR, _ := confidence.CV(rps)
	cvP, _ := confidence.CV(p99)
	mean := stat.Mean(rps, nil)
	rs, ps, ws := []float64{cvR}, []float64{cvP}, []float64{mean}
	repeated := 0
	for _, rc := range run.Cells {
		var xs, ys []float64
		for _, rep := range rc.Reps {
			if rep.Status == results.StatusOK {
				xs, ys = append(xs, rep.RPS), append(ys, rep.LatencyMS.P99)
			}
		}
		r, okR := confidence.CV(xs)
		p, okP := confidence.CV(ys)
		if okR && okP {
			rs, ps, ws, repeated = append(rs, r), append(ps, p), append(ws, stat.Mean(xs, nil)), repeated+1
		}
	}
	if r, ok := confidence.PooledNoise(rs, ws); ok {
		cvR = r
	}
	if p, ok := confidence.PooledNoise(ps, ws); ok {
		cvP = p
	}
	return Noise{Measured: true, Control: id, Controls: len(rps), Repeated: repeated,
		RPSCV: cvR, P99CV: cvP, RPS: bandOf(cvR), P99: bandOf(cvP)}
}

// Sentence says which noise the report used: "measured from N control
// runs: RPS ±x %, p99 ±y %" or "assumed 5 %", with why.
func (n Noise) Sentence() string {
	if !n.Measured {
		s := fmt.Sprintf("assumed %g %%", 100*n.RPS)
		if n.Why != "" {
			s += " (" + n.Why + ")"
		}
		return s
	}
	pooled := ""
	if n.Repeated > 0 {
		pooled = fmt.Sprintf(" pooled with %d repeated cells", n.Repeated)
	}
	return fmt.Sprintf("measured from %d control runs of %s%s: RPS ±%.1f %%, p99 ±%.1f %% (one measurement's "+
		"coefficient of variation; two single figures closer than 1.96 × √2 times it, RPS %.1f %%, p99 %.1f %%, "+
		"are not told apart)", n.Controls, n.Control, pooled, 100*n.RPSCV, 100*n.P99CV, 100*n.RPS, 100*n.P99)
}
