package limit

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// Result is what a search found; it is written as limit.json.
type Result struct {
	// SafeLimit is the highest level at which the SLO held, every lower
	// measured level holding it too; null when the first level fails.
	SafeLimit *SafeLimit `json:"safe_limit"`
	// Levels are every measured level, by level (Step gives the order).
	Levels []Level `json:"levels"`
	// Bottleneck is named at the first failing level (the lowest level
	// that failed); null when none failed.
	Bottleneck *Bottleneck `json:"bottleneck"`
	// SLO is the objective every level was judged by.
	SLO SLO `json:"slo"`
	// Config is the search as asked (start, factor, bounds, levels).
	Config Config `json:"search"`
	// Stopped says why the search ended.
	Stopped string `json:"stopped"`
}

// Summary is what a cell's record keeps of the search (its safe_limit).
func (r Result) Summary() results.SafeLimit {
	s := results.SafeLimit{Model: string(r.Config.Model), SLO: r.SLO.String(), Steps: len(r.Levels)}
	if r.SafeLimit != nil {
		s.Level = r.SafeLimit.Level
	}
	if r.Bottleneck != nil {
		s.FailsAt, s.Bottleneck = r.Bottleneck.Level, r.Bottleneck.Name
	}
	return s
}

// SafeLimit is the safe limit of a configuration under one load model.
type SafeLimit struct {
	Model Model `json:"model"`
	Level int   `json:"level"`
}

// Bottleneck names what ran out first at a failing level.
type Bottleneck struct {
	Level int `json:"level"`
	// Name is one of the Bottleneck* labels.
	Name string `json:"name"`
	// Evidence gives the figures the name rests on.
	Evidence string `json:"evidence"`
}

// The bottleneck names, in the order Classify tries them: a resource at
// its limit explains errors and dropped iterations, so it comes first.
const (
	// BottleneckTargetCPU: the target's mean CPU is at or above 85 % of
	// its limit, or it was throttled in at least 20 % of CFS periods
	// (each throttled period stalls every thread of the target until the
	// next one, which lands directly in the tail latency).
	BottleneckTargetCPU = "target-cpu"
	// BottleneckPoolerCPU: clients waited at the connection pooler while
	// its container used 85 % of a core or more (PgBouncer runs one
	// thread): the pooler, not the database, set the pace.
	BottleneckPoolerCPU = "pooler-cpu"
	// BottleneckPool: the sessions busy at once reached what the pool
	// allows the database (web threads × pool with a pool per web worker),
	// or clients waited at the pooler with all its server connections
	// busy, so requests waited for a connection.
	BottleneckPool = "pool"
	// BottleneckDBCPU: the database container's mean CPU is at or above
	// 85 % of its limit (of the engine's CPUs when it has none).
	BottleneckDBCPU = "db-cpu"
	// BottleneckErrors: the run failed, or 1 % or more of the requests
	// failed, with no resource at its limit.
	BottleneckErrors = "errors"
	// BottleneckLoadGenerator: the open model dropped iterations (the
	// load generator could not start them in time) with nothing else at
	// a limit: the level measured the generator, not the target.
	BottleneckLoadGenerator = "load-generator"
	// BottleneckHostCPU: nothing the samplers see at a limit, but
	// runnable tasks on the host waited for a CPU in half the measured
	// phase or more (PSI): the target's threads queued for the host's
	// cores, which its own CPU limit does not show (a shared host).
	BottleneckHostCPU = "host-cpu"
	// BottleneckNone: nothing near a limit; latency grew with the offered
	// load (queueing) before any measured resource ran out.
	BottleneckNone = "none"
)

// Thresholds of Classify.
const (
	saturatedPct = 85
	throttledPct = 20
	errorPct     = 1
	// poolerCores is the CPU at which a one-thread pooler is saturated.
	poolerCores = 0.85
	// hostPressure is the share of a phase with tasks waiting for a CPU
	// at which the host is the bottleneck when nothing else is.
	hostPressure = 0.5
)

// Classify names the bottleneck of a failing level from its figures.
func Classify(l Level) Bottleneck {
	b := Bottleneck{Level: l.Level}
	s := l.Signals
	switch {
	case l.TargetCPUPct != nil && (*l.TargetCPUPct >= saturatedPct || s.TargetThrottledPct >= throttledPct):
		b.Name = BottleneckTargetCPU
		b.Evidence = fmt.Sprintf("target CPU %.0f%% of its limit, throttled in %.0f%% of CFS periods",
			*l.TargetCPUPct, s.TargetThrottledPct)
	case poolerSaturated(s.Pooler):
		b.Name = BottleneckPoolerCPU
		b.Evidence = fmt.Sprintf("pooler CPU %.2f cores (one thread), %d clients waiting at peak, %d server connections busy",
			*s.Pooler.CPUCores, s.Pooler.ClientsWaitingPeak, s.Pooler.ServersActivePeak)
	case s.DBPool > 0 && s.DBActivePeak >= s.DBPool:
		b.Name = BottleneckPool
		b.Evidence = fmt.Sprintf("%d DB sessions busy at once with a pool of %d", s.DBActivePeak, s.DBPool)
		if p := s.Pooler; p != nil && p.ClientsWaitingPeak > 0 {
			b.Evidence += fmt.Sprintf(", %d clients waiting at the pooler", p.ClientsWaitingPeak)
		}
	case s.DBPool > 0 && s.Pooler != nil && s.Pooler.ClientsWaitingPeak > 0 && s.Pooler.ServersActivePeak >= s.DBPool:
		b.Name = BottleneckPool
		b.Evidence = fmt.Sprintf("%d clients waiting at the pooler, its %d server connections of a pool of %d all busy",
			s.Pooler.ClientsWaitingPeak, s.Pooler.ServersActivePeak, s.DBPool)
	case l.DBCPUPct != nil && *l.DBCPUPct >= saturatedPct:
		b.Name = BottleneckDBCPU
		b.Evidence = fmt.Sprintf("database CPU %.0f%% of its limit", *l.DBCPUPct)
	case s.Failed != "" || (1-l.SuccessRate)*100 >= errorPct:
		b.Name, b.Evidence = BottleneckErrors, errorEvidence(l)
	case s.Dropped > 0:
		b.Name = BottleneckLoadGenerator
		b.Evidence = fmt.Sprintf("%d iterations dropped by the load generator", s.Dropped)
	case s.HostCPUPressure != nil && *s.HostCPUPressure >= hostPressure:
		b.Name = BottleneckHostCPU
		b.Evidence = fmt.Sprintf("tasks on the host waited for a CPU in %.0f%% of the phase (PSI)", 100**s.HostCPUPressure)
		if below := belowLimits(l); len(below) > 0 {
			b.Evidence += "; below their limits: " + strings.Join(below, "; ")
		}
	default:
		b.Name, b.Evidence = BottleneckNone, noneEvidence(l)
	}
	return b
}

// poolerSaturated reports whether clients waited at a pooler whose one
// thread was saturated.
func poolerSaturated(p *PoolerSignals) bool {
	return p != nil && p.CPUCores != nil && *p.CPUCores >= poolerCores && p.ClientsWaitingPeak > 0
}

// noneEvidence lists the figures that stayed below their limits.
func noneEvidence(l Level) string {
	msg := "no measured resource at its limit"
	if seen := belowLimits(l); len(seen) > 0 {
		msg += " (" + strings.Join(seen, "; ") + ")"
	}
	return msg + ": the tail grew with queueing inside the target, e.g. for its web threads"
}

// belowLimits lists a level's figures that stayed below their limits.
func belowLimits(l Level) []string {
	var seen []string
	if l.TargetCPUPct != nil {
		seen = append(seen, fmt.Sprintf("target CPU %.0f%%, throttled in %.0f%% of periods",
			*l.TargetCPUPct, l.Signals.TargetThrottledPct))
	}
	if l.Signals.DBPool > 0 && l.DBSessionsPeak != nil {
		seen = append(seen, fmt.Sprintf("%d of %d pool sessions busy at peak", l.Signals.DBActivePeak, l.Signals.DBPool))
	}
	if p := l.Signals.Pooler; p != nil {
		seen = append(seen, poolerText(p))
	}
	return seen
}

// errorEvidence names the failure or the largest error classes.
func errorEvidence(l Level) string {
	if l.Signals.Failed != "" {
		return "run failed: " + l.Signals.Failed
	}
	classes := make([]string, 0, len(l.Signals.Errors))
	for c := range l.Signals.Errors {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(i, j int) bool {
		ci, cj := l.Signals.Errors[classes[i]], l.Signals.Errors[classes[j]]
		return ci > cj || (ci == cj && classes[i] < classes[j])
	})
	parts := make([]string, 0, 3)
	for _, c := range classes[:min(3, len(classes))] {
		parts = append(parts, fmt.Sprintf("%s %d", c, l.Signals.Errors[c]))
	}
	msg := fmt.Sprintf("%.2f%% of requests failed", (1-l.SuccessRate)*100)
	if len(parts) > 0 {
		msg += " (" + strings.Join(parts, ", ") + ")"
	}
	return msg
}

// poolerText is a pooler's figures in words.
func poolerText(p *PoolerSignals) string {
	cpu := "pooler CPU not sampled"
	if p.CPUCores != nil {
		cpu = fmt.Sprintf("pooler CPU %.2f cores", *p.CPUCores)
	}
	return fmt.Sprintf("%s, %d clients waiting at peak", cpu, p.ClientsWaitingPeak)
}
