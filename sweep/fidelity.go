package sweep

import (
	"time"

	"github.com/sweep-tool/sweep/sweep/steady"
)

// Fidelity is how long and how precisely one job measures its cell: the
// longest warm-up and measured phase, and the steady-state rule that may
// end either sooner. A grid run measures every job at the spec's
// (Spec.Fidelity); an adaptive strategy gives each round's jobs its own
// (Job.Fidelity), e.g. short screening rounds and finals that stop once
// steady.
type Fidelity struct {
	// Round is the strategy's round the job belongs to, recorded as the
	// record's round (0: none).
	Round int
	// Warmup is the longest warm-up (0: none) and Duration the longest
	// measured phase.
	Warmup   time.Duration
	Duration time.Duration
	// Precision, when above 0, ends the warm-up once throughput has
	// settled and the measured phase once it is steady within Precision
	// (see sweep/steady), never before MinDuration; 0 runs both phases
	// for their whole length.
	Precision   float64
	MinDuration time.Duration
}

// Fidelity is the spec's: its warm-up, duration, precision and minimum.
func (s Spec) Fidelity() Fidelity {
	return Fidelity{Warmup: s.Warmup.Std(), Duration: s.Duration.Std(),
		Precision: s.Precision, MinDuration: s.MinDuration.Std()}
}

// p99PerPrecision is how much looser p99's tolerance is than the RPS
// precision: the rule's defaults (±2 % and 10 %) keep this ratio.
const p99PerPrecision = steady.DefaultP99Tolerance / steady.DefaultPrecision

// rule is the steady-state rule's configuration for f. p99's tolerance
// follows the precision asked (five times it, never below the default
// 10 %): one who accepts a looser mean accepts a looser tail too, and a
// tail statistic is the noisier of the two.
func (f Fidelity) rule() steady.Config {
	return steady.Config{Precision: f.Precision, MinDuration: f.MinDuration,
		MaxDuration: f.Duration, WarmupMax: f.Warmup,
		P99Tolerance: max(steady.DefaultP99Tolerance, p99PerPrecision*f.Precision)}
}

// fidelity is job's own, or the spec's.
func (r *Runner) fidelity(job Job) Fidelity {
	if job.Fidelity != nil {
		return *job.Fidelity
	}
	return r.Spec.Fidelity()
}
