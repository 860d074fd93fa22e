package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Cell states beyond ok and failed: a planned cell with no finished
// repetition.
const statusMissing results.Status = "missing"

// Cell is one planned cell with its repetitions summarised.
type Cell struct {
	results.CellInfo
	// Status is ok when at least one repetition is ok, failed when all
	// failed, missing when none finished.
	Status results.Status `json:"status"`
	// Reason is the last failed repetition's reason.
	Reason string `json:"reason,omitempty"`
	// Failed counts failed repetitions.
	Failed int `json:"failed_reps,omitempty"`
	// Load describes the load model of the measured repetitions.
	Load      string   `json:"load,omitempty"`
	RPS       Estimate `json:"rps"`
	P99       Estimate `json:"p99_ms"`
	ErrorRate Estimate `json:"error_rate"`
	// CPUPct (target CPU % of its limit) and Sessions (peak DB sessions)
	// are nil when no sampler recorded them.
	CPUPct   *Estimate `json:"cpu_pct_of_limit,omitempty"`
	Sessions *Estimate `json:"db_sessions_peak,omitempty"`
	// Breakdown is the latency split into connect, TLS, sending, waiting
	// and receiving over the ok repetitions (see cellBreakdown); nil unless
	// the driver measured it in every one.
	Breakdown *results.Breakdown `json:"breakdown_ms,omitempty"`
	// SafeLimit summarises the repetitions' safe limits (run
	// --find-limit); nil unless every ok repetition searched one.
	SafeLimit *LimitSummary `json:"safe_limit,omitempty"`
	// Bottleneck is a short label (see Bottlenecks); empty without metrics.
	Bottleneck string `json:"bottleneck,omitempty"`
	// Screened is, for a cell of a halving run measured only in a
	// screening round (status screened), its last short-run figures.
	Screened *Screening `json:"screened,omitempty"`
	// Generator is the evidence that the load generator, not the target,
	// set the figures (results.GeneratorBound); LittlesOff says why a
	// repetition's Little's ratio is off. Empty when neither holds.
	Generator  string `json:"generator_bound,omitempty"`
	LittlesOff string `json:"littles_off,omitempty"`
	// Drifted is set when a repetition of the cell was measured in a
	// stretch where the run's control cell drifted (Report.Drift).
	Drifted bool `json:"drifted,omitempty"`
	// Ineligible says why the cell cannot win; empty when it can.
	Ineligible string `json:"ineligible,omitempty"`
	// Score is the balanced score (see the package doc); NaN when the
	// cell is ineligible.
	Score float64 `json:"-"`

	reps []results.Rep
	// paired are the cell's slices by round when the report reads an
	// interleaved run paired by round; nil otherwise.
	paired *pairedRounds
}

// summarise builds a Cell from a run cell at opts' assumed noise; service
// is the target's, pool where its pool lived.
func summarise(rc results.RunCell, service string, pool sweep.PoolShape, opts Options) *Cell {
	return summariseAt(rc, service, pool, opts, assumedNoise(opts, ""))
}

// summariseAt builds a Cell from a run cell, judging a single RPS and p99
// by the run's noise bands.
func summariseAt(rc results.RunCell, service string, pool sweep.PoolShape, opts Options, noise Noise) *Cell {
	c := &Cell{CellInfo: rc.CellInfo, Status: statusMissing, Score: math.NaN()}
	var rps, p99, errs, cpu, sess []float64
	skipped := 0
	for _, r := range rc.Reps {
		if r.Status == results.StatusSkipped {
			skipped++
			c.Reason = r.Reason
			continue
		}
		if r.Status != results.StatusOK {
			c.Failed++
			c.Reason = r.Reason
			continue
		}
		c.reps = append(c.reps, r)
		c.Load = describeLoad(r.Load)
		rps = append(rps, r.RPS)
		p99 = append(p99, r.LatencyMS.P99)
		errs = append(errs, r.ErrorRate)
		if u, ok := r.Resources[service]; ok {
			cpu = append(cpu, u.CPUPctOfLimitMean)
		}
		if r.DB != nil {
			sess = append(sess, float64(r.DB.Sessions.TotalPeak))
		}
	}
	switch {
	case len(c.reps) > 0:
		c.Status = results.StatusOK
	case c.Failed > 0:
		c.Status = results.StatusFailed
	case skipped > 0:
		c.Status = results.StatusSkipped
	}
	c.RPS = estimate(rps, noise.RPS)
	c.P99 = estimate(p99, noise.P99)
	c.RPS.Assumed = c.RPS.Assumed && !noise.Measured
	c.P99.Assumed = c.P99.Assumed && !noise.Measured
	if noise.Measured {
		c.RPS, c.P99 = c.RPS.atLeast(noise.RPS), c.P99.atLeast(noise.P99)
	}
	c.ErrorRate = estimate(errs, opts.NoiseBand)
	c.CPUPct = optional(cpu, len(rps), opts.NoiseBand)
	c.Sessions = optional(sess, len(rps), opts.NoiseBand)
	screening(c, rc)
	c.Breakdown = cellBreakdown(c.reps)
	c.SafeLimit = summariseLimit(c.reps, opts.NoiseBand)
	c.Ineligible = ineligible(c, opts)
	consistency(c, service)
	c.Bottleneck = bottleneck(c, service, pool, opts)
	return c
}

// optional summarises a metric only when every ok repetition has it.
func optional(xs []float64, n int, band float64) *Estimate {
	if len(xs) == 0 || len(xs) != n {
		return nil
	}
	e := estimate(xs, band)
	return &e
}

func ineligible(c *Cell, opts Options) string {
	switch {
	case c.Status == statusMissing:
		return "not measured"
	case c.Status == statusScreened:
		return fmt.Sprintf("screened out after round %d (measured %g s)", c.Screened.Round, c.Screened.DurationS)
	case c.Status == results.StatusFailed:
		return "failed: " + c.Reason
	case c.Status == results.StatusSkipped:
		return "skipped: " + c.Reason
	case c.ErrorRate.Mean > opts.ErrorBound:
		return fmt.Sprintf("error rate %.2f %% above the %.2f %% bound", 100*c.ErrorRate.Mean, 100*opts.ErrorBound)
	case c.SafeLimit != nil && !c.SafeLimit.held():
		return fmt.Sprintf("no load level met the SLO (the first, %d, failed)", c.SafeLimit.FailsAt)
	}
	return ""
}

func describeLoad(l results.LoadInfo) string {
	parts := []string{l.Model}
	if l.Rate > 0 {
		parts = append(parts, fmt.Sprintf("rate=%g", l.Rate))
	}
	if l.VUs > 0 {
		parts = append(parts, fmt.Sprintf("vus=%d", l.VUs))
	}
	load := strings.TrimSpace(strings.Join(parts, " "))
	for _, f := range []struct {
		what string
		ref  *results.FileRef
	}{{"k6 script", l.Script}, {"scenario", l.Scenario}} {
		if f.ref != nil {
			load += fmt.Sprintf(", %s %s (sha256 %.12s)", f.what, f.ref.Name, f.ref.SHA256)
		}
	}
	return load
}

// pairs returns every multiplier pair that gives the cell.
func (c *Cell) pairs() [][2]float64 {
	if len(c.Mults) > 0 {
		return c.Mults
	}
	return [][2]float64{{c.WebMult, c.DBMult}}
}

// value returns the cell's estimate of m, or nil when absent.
func (c *Cell) value(m Metric) *Estimate {
	switch m {
	case MetricRPS:
		return &c.RPS
	case MetricP99:
		return &c.P99
	case MetricErrors:
		e := c.ErrorRate
		e.Mean, e.Lo, e.Hi = 100*e.Mean, 100*e.Lo, 100*e.Hi
		return &e
	case MetricCPU:
		return c.CPUPct
	case MetricLimit:
		if c.SafeLimit == nil {
			return nil
		}
		return &c.SafeLimit.Level
	default:
		return c.Sessions
	}
}

// eligible reports whether the cell may win.
func (c *Cell) eligible() bool { return c.Ineligible == "" }
