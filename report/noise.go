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
	// Measured is true when the bands come from the run's own figures
	// measured more than once (runNoise): its control cell, its
	// repeated cells.
	Measured bool `json:"measured"`
	// Control is the control cell and Controls its finished ok
	// measurements pooled (none below two); Repeated counts the cells
	// whose repetitions were pooled with them.
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
	// Pairing, for an interleaved run, says how its figures were read
	// against their rounds (pairRun): its repeated cells are then the
	// cells' rounds, and no control cell ran.
	Pairing *Pairing `json:"pairing,omitempty"`
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

// runNoise measures the run's noise from the figures it measured more
// than once: its control cell's ok controls and every cell's ok
// repetitions, each cell's coefficient of variation pooled weighted by
// its RPS (confidence.PooledNoise). They measure it once they hold
// MinControls − 1 degrees of freedom (Σ (n − 1) over the cells measured
// n ≥ 2 times): MinControls controls, or two cells measured twice, or
// one three times. With fewer it is opts' assumed band, saying why.
func runNoise(run *results.Run, opts Options) Noise {
	id, series := controlSeries(run)
	rps, p99 := okFigures(series)
	var rs, ps, ws []float64
	dof, repeated := 0, 0
	add := func(xs, ys []float64) bool {
		r, okR := confidence.CV(xs)
		p, okP := confidence.CV(ys)
		if okR && okP {
			rs, ps, ws, dof = append(rs, r), append(ps, p), append(ws, stat.Mean(xs, nil)), dof+len(xs)-1
		}
		return okR && okP
	}
	add(rps, p99)
	for _, rc := range run.Cells {
		var xs, ys []float64
		for _, rep := range rc.Reps {
			if rep.Status == results.StatusOK {
				xs, ys = append(xs, rep.RPS), append(ys, rep.LatencyMS.P99)
			}
		}
		if add(xs, ys) {
			repeated++
		}
	}
	if dof < MinControls-1 {
		return assumedNoise(opts, tooFew(id, len(series), len(rps), repeated))
	}
	cvR, _ := confidence.PooledNoise(rs, ws)
	cvP, _ := confidence.PooledNoise(ps, ws)
	n := Noise{Measured: true, Repeated: repeated, RPSCV: cvR, P99CV: cvP, RPS: bandOf(cvR), P99: bandOf(cvP)}
	if len(rps) >= 2 {
		n.Control, n.Controls = id, len(rps)
	}
	return n
}

// tooFew says why the run's figures measured more than once do not
// measure its noise: controls finished, ok of them ok, and repeated
// cells measured twice or more (then one, measured twice).
func tooFew(id string, controls, ok, repeated int) string {
	switch {
	case controls > 0:
		return fmt.Sprintf("only %d control runs of %s finished ok, %d are needed to measure it", ok, id, MinControls)
	case repeated > 0:
		return "the run measured no control cell and only one cell twice"
	}
	return "the run measured no control cell and no cell twice"
}

// NotMeasured says, when the noise was not measured, why, what the
// report's sets then rest on and what measures it, in the flags' names;
// "" when it was measured. It is what the report says in place of a
// calibration (Report.Calibrate), which never rests on an assumed band.
func (n Noise) NotMeasured() string {
	if n.Measured {
		return ""
	}
	why := ""
	if n.Why != "" {
		why = " (" + n.Why + ")"
	}
	if n.Pairing != nil {
		return fmt.Sprintf("noise not measured%s: ties are judged within the assumed band of %g %% (--noise) and no "+
			"share of re-runs is claimed for any set; an interleaved run measures it from its rounds: run more of them "+
			"(--rounds)", why, 100*n.RPS)
	}
	return fmt.Sprintf("noise not measured%s: ties are judged within the assumed band of %g %% (--noise) and no "+
		"share of re-runs is claimed for any set; to measure it, add --control-every N (a grid on one stack "+
		"measures at least %d controls unless --control-every 0) or --repeat 2", why, 100*n.RPS, MinControls)
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
	from := fmt.Sprintf("%d repeated cells", n.Repeated)
	switch {
	case n.Pairing != nil:
		from = fmt.Sprintf("the rounds of %d cells, each slice against its round's median, or its piece's where the host stepped inside the round (no control cell ran)", n.Repeated)
	case n.Controls > 0 && n.Repeated > 0:
		from = fmt.Sprintf("%d control runs of %s pooled with %d repeated cells", n.Controls, n.Control, n.Repeated)
	case n.Controls > 0:
		from = fmt.Sprintf("%d control runs of %s", n.Controls, n.Control)
	}
	return fmt.Sprintf("measured from %s: RPS ±%.1f %%, p99 ±%.1f %% (one measurement's "+
		"coefficient of variation; two single figures closer than 1.96 × √2 times it, RPS %.1f %%, p99 %.1f %%, "+
		"are not told apart)", from, 100*n.RPSCV, 100*n.P99CV, 100*n.RPS, 100*n.P99)
}
