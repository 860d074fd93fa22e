package sweep

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
)

// GeneratorCheckFile is where a run keeps its generator check.
const GeneratorCheckFile = "generator-check.json"

// The generator check's rule: the chosen driver limits the load when its
// RPS is lower than the reference driver's by more than the noise of the
// two (the 95 % half-widths of their per-second RPS, combined) and by at
// least MinGeneratorGapPct; with too few seconds for a half-width, by at
// least UnknownNoiseGapPct.
const (
	MinGeneratorGapPct = 5.0
	UnknownNoiseGapPct = 20.0
	// minIntervalS is the shortest per-second interval counted (the last,
	// partial one is left out).
	minIntervalS = 0.5
)

// GeneratorCheck compares the chosen load driver with a reference driver
// (the built-in one) on the same cell at the same load. Latency a driver
// adds while it waits for a CPU to send its next request does not show in
// its own figures (it counts the wait as the target's latency, so its
// Little's ratio stays near 1); only a second driver, cheaper per request,
// on the same target shows that the first one, not the target, set the
// pace.
type GeneratorCheck struct {
	SchemaVersion int              `json:"schema_version"`
	Cell          results.CellInfo `json:"cell"`
	Chosen        GeneratorRun     `json:"chosen"`
	Reference     GeneratorRun     `json:"reference"`
	// GapPct is how much lower the chosen driver's RPS is than the
	// reference's, in percent of the reference (negative: higher);
	// NoisePct the combined half-width in the same unit, nil when either
	// side had too few seconds for one.
	GapPct   float64  `json:"gap_pct"`
	NoisePct *float64 `json:"noise_pct"`
	// Limited is the verdict: the chosen driver limited the load.
	Limited bool   `json:"limited"`
	Warning string `json:"warning,omitempty"`
}

// GeneratorRun is one driver's short measurement of the cell.
type GeneratorRun struct {
	Driver string         `json:"driver"`
	Status results.Status `json:"status"`
	Reason string         `json:"reason,omitempty"`
	RPS    float64        `json:"rps"`
	// RPSHalfWidth is the 95 % half-width of the per-second RPS; nil
	// with fewer than two whole seconds.
	RPSHalfWidth    *float64             `json:"rps_half_width"`
	P99MS           float64              `json:"p99_ms"`
	LittlesRatio    *float64             `json:"littles_ratio,omitempty"`
	CPUPerRequestUS float64              `json:"cpu_per_request_us,omitempty"`
	CPUPressure     *results.CPUPressure `json:"cpu_pressure,omitempty"`
	Intervals       []results.Interval   `json:"-"`
	// record is the whole record, which the cell adopts.
	record results.Record
}

// GeneratorHook is a Runner.Measure that runs the generator check on each
// cell it is given (the first cell of `sweep check`): the cell's measured
// load with r.Driver in dir/chosen, then the same load with reference in
// dir/reference, each with its warm-up. The cell's record keeps the
// chosen driver's figures; done receives the comparison (to print it and
// write it into the run).
func GeneratorHook(r *Runner, reference Driver, done func(GeneratorCheck) error) func(context.Context, Job, string, *results.Record) error {
	return func(ctx context.Context, job Job, dir string, rec *results.Record) error {
		chosen := r.measureWith(ctx, r.Driver, job.Cell, rec.Applied, filepath.Join(dir, "chosen"))
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ref := r.measureWith(ctx, reference, job.Cell, rec.Applied, filepath.Join(dir, "reference"))
		rec.Adopt(chosen.record)
		check := CompareGenerators(job.Cell.Info(), chosen, ref)
		if check.Warning != "" {
			rec.Warnings = append(rec.Warnings, check.Warning)
		}
		if err := done(check); err != nil {
			return err
		}
		if chosen.Status != results.StatusOK {
			return fmt.Errorf("%s: %s", chosen.Driver, chosen.Reason)
		}
		return nil
	}
}

// measureWith measures cell, applied as Setup left it, with d at the
// spec's load (MeasureAt with another driver), collecting its intervals.
func (r *Runner) measureWith(ctx context.Context, d Driver, cell Cell, applied results.Applied, dir string) GeneratorRun {
	col := &collecting{Driver: d}
	saved := r.Driver
	r.Driver = col
	defer func() { r.Driver = saved }()
	rec := r.MeasureAt(ctx, cell, applied, r.Spec.LoadFor(cell, d.Name()), dir)
	run := GeneratorRun{Driver: d.Name(), Status: rec.Status, Reason: rec.Reason, RPS: rec.RPS,
		P99MS: rec.LatencyMS.P99, LittlesRatio: rec.LittlesRatio, Intervals: col.intervals, record: rec}
	if _, hw := perSecondRPS(col.intervals); !math.IsNaN(hw) {
		run.RPSHalfWidth = &hw
	}
	if rec.Driver != nil {
		run.CPUPerRequestUS = rec.Driver.CPUPerRequestUS
	}
	if rec.Host != nil {
		run.CPUPressure = rec.Host.CPUPressure
	}
	return run
}

// collecting is a Driver that keeps the measured phase's intervals.
type collecting struct {
	Driver
	intervals []results.Interval
}

func (c *collecting) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if !req.Warmup {
		next := req.Interval
		req.Interval = func(iv results.Interval) {
			c.intervals = append(c.intervals, iv)
			if next != nil {
				next(iv)
			}
		}
	}
	return c.Driver.Run(ctx, req)
}

// perSecondRPS is the mean and 95 % half-width of the RPS of the whole
// intervals (NaN half-width with fewer than two).
func perSecondRPS(ivs []results.Interval) (mean, half float64) {
	var xs []float64
	prev := 0.0
	for _, iv := range ivs {
		if length := iv.T - prev; length >= minIntervalS {
			xs = append(xs, iv.RPS(length))
		}
		prev = iv.T
	}
	return confidence.MeanHalfWidth(xs)
}

// CompareGenerators judges whether chosen's RPS is lower than ref's beyond
// noise (see MinGeneratorGapPct) and words the warning.
func CompareGenerators(cell results.CellInfo, chosen, ref GeneratorRun) GeneratorCheck {
	c := GeneratorCheck{SchemaVersion: results.SchemaVersion, Cell: cell, Chosen: chosen, Reference: ref}
	if chosen.Status != results.StatusOK || ref.Status != results.StatusOK || ref.RPS <= 0 {
		return c
	}
	c.GapPct = (ref.RPS - chosen.RPS) / ref.RPS * 100
	need := UnknownNoiseGapPct
	if chosen.RPSHalfWidth != nil && ref.RPSHalfWidth != nil {
		noise := math.Hypot(*chosen.RPSHalfWidth, *ref.RPSHalfWidth) / ref.RPS * 100
		c.NoisePct = &noise
		need = max(MinGeneratorGapPct, noise)
	}
	if c.GapPct <= need {
		return c
	}
	c.Limited = true
	if chosen.Driver == ref.Driver {
		c.Warning = fmt.Sprintf("two measurements of %s with the same driver (%s) differ by %.0f %%, beyond their noise: "+
			"this host is too busy to measure on; free it, or pin the target to its own CPUs", cell.ID, chosen.Driver, c.GapPct)
		return c
	}
	c.Warning = fmt.Sprintf("the load generator, not the target, limits results on this host: on %s the %s driver reached "+
		"%.0f rps, %.0f %% below the %s driver's %.0f rps at the same load; pin the target to its own CPUs, "+
		"drive the load from another node, or use the %s driver",
		cell.ID, chosen.Driver, chosen.RPS, c.GapPct, ref.Driver, ref.RPS, ref.Driver)
	return c
}

// Text is the check in a few lines for a terminal.
func (c GeneratorCheck) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "generator check on %s:\n", c.Cell.ID)
	for i, run := range []GeneratorRun{c.Chosen, c.Reference} {
		fmt.Fprintf(&b, "  %-9s %-8s %s", []string{"chosen", "reference"}[i], run.Driver, run.Status)
		if run.Status != results.StatusOK {
			fmt.Fprintf(&b, " (%s)\n", OneLine(run.Reason))
			continue
		}
		fmt.Fprintf(&b, " %.0f rps", run.RPS)
		if run.RPSHalfWidth != nil {
			fmt.Fprintf(&b, " ± %.0f", *run.RPSHalfWidth)
		}
		fmt.Fprintf(&b, ", p99 %.2f ms, %.0f µs CPU per request", run.P99MS, run.CPUPerRequestUS)
		if run.LittlesRatio != nil {
			fmt.Fprintf(&b, ", Little's ratio %.2f", *run.LittlesRatio)
		}
		b.WriteString("\n")
	}
	switch {
	case c.Warning != "":
		b.WriteString("  warning: " + c.Warning + "\n")
	case c.Chosen.Status == results.StatusOK && c.Reference.Status == results.StatusOK:
		fmt.Fprintf(&b, "  no generator limit: the %s driver's RPS is within noise of the %s driver's (gap %.1f %%)\n",
			c.Chosen.Driver, c.Reference.Driver, c.GapPct)
	}
	return b.String()
}

// Write puts the check into dir as generator-check.json.
func (c GeneratorCheck) Write(dir string) error {
	return results.WriteJSONAtomic(filepath.Join(dir, GeneratorCheckFile), c)
}
