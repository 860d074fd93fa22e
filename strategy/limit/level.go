// Package limit finds the safe limit of one configuration: the highest
// load at which a service-level objective (SLO) still holds, as the
// infrastructure study did by hand for PHP, Node.js and Go stacks. It owns
// the SLO grammar, the search (geometric ramp, then bisection, bounded by
// a number of measured steps), the reading of a level from a cell record,
// the naming of the bottleneck at the first failing level, and the
// study's table. It measures nothing itself: the search calls a Measure
// function, which the CLI backs with real runs (sweep.Runner.Setup once,
// MeasureAt per level) and tests back with fakes.
package limit

import (
	"fmt"
	"math"
	"strings"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Model says what a level counts.
type Model string

// The two load models of a search.
const (
	// ModelVUs: a level is a number of virtual users (closed model,
	// --load vus=N).
	ModelVUs Model = "vus"
	// ModelRate: a level is iterations per second (open model,
	// --load rate=R).
	ModelRate Model = "rate"
)

// ParseModel parses --model.
func ParseModel(text string) (Model, error) {
	switch m := Model(strings.TrimSpace(text)); m {
	case ModelVUs, ModelRate:
		return m, nil
	}
	return "", sweep.BadInput("find_limit.model", "%q is not vus (closed: levels are VUs) or rate (open: levels are iterations/s)", text)
}

// LoadSpec is the load of one level; maxVUs bounds the open model.
func (m Model) LoadSpec(level, maxVUs int) sweep.LoadSpec {
	if m == ModelRate {
		return sweep.LoadSpec{Rate: float64(level), MaxVUs: maxVUs}
	}
	return sweep.LoadSpec{VUs: level}
}

// Level is one measured level of a search (an element of limit.json's
// levels).
type Level struct {
	Level int `json:"level"`
	// Step is the order in which the level was measured, from 1.
	Step        int             `json:"step"`
	Requests    int64           `json:"requests"`
	SuccessRate float64         `json:"success_rate"` // 0..1
	LatencyMS   results.Latency `json:"latency_ms"`
	// TargetCPUPct is the target's mean CPU as a share of its limit; the
	// DB figures come from the DB sampler and the database service's
	// container. Each is null when its sampler did not run or took no
	// reading (a level shorter than the samplers' first second or two).
	TargetCPUPct   *float64 `json:"target_cpu_pct"`
	DBSessionsMean *float64 `json:"db_sessions_mean"`
	DBSessionsPeak *int     `json:"db_sessions_peak"`
	DBCPUPct       *float64 `json:"db_cpu_pct"`
	// ElapsedS is the measured phase's length.
	ElapsedS float64 `json:"elapsed_s"`
	SLOOK    bool    `json:"slo_ok"`
	// Why names the terms that failed, with the values seen.
	Why string `json:"why,omitempty"`
	// Signals is the evidence the bottleneck is named from.
	Signals Signals `json:"signals"`
}

// Signals are the figures of a level beyond the table that say what ran
// out first.
type Signals struct {
	// TargetThrottledPct is the share of CFS periods in which the target
	// was throttled.
	TargetThrottledPct float64 `json:"target_throttled_pct"`
	// DBActivePeak is the most sessions of the target database busy at
	// once; DBPool the sessions the pool lets the database see
	// (sweep.PoolShape.Conns: the pool size, web threads × pool when each
	// web worker has its own pool, a pooler's pool).
	DBActivePeak int `json:"db_active_peak"`
	DBPool       int `json:"db_pool"`
	// HostCPUPressure is the share of the level's measured phase in which
	// some runnable task on the host waited for a CPU (PSI cpu some,
	// 0..1); nil when the kernel did not say.
	HostCPUPressure *float64 `json:"host_cpu_pressure,omitempty"`
	// Pooler is the connection pooler (PgBouncer) between the target and
	// the database, when it was sampled (--pooler-dsn); nil otherwise.
	Pooler *PoolerSignals `json:"pooler,omitempty"`
	// Dropped counts iterations the open model could not start.
	Dropped int64 `json:"dropped_iterations"`
	// Errors counts failed requests by class.
	Errors map[string]int64 `json:"errors,omitempty"`
	// Failed is the reason the level's run failed (the target died or was
	// replaced); empty when it ran.
	Failed string `json:"failed,omitempty"`
}

// PoolerSignals are a pooler's figures over a level.
type PoolerSignals struct {
	// ClientsWaitingPeak is the most clients waiting for a server
	// connection at once; ServersActivePeak the most server connections
	// busy at once.
	ClientsWaitingPeak int `json:"clients_waiting_peak"`
	ServersActivePeak  int `json:"servers_active_peak"`
	// CPUCores is the pooler container's mean CPU in cores (PgBouncer runs
	// one thread: 1 core is all it can use); nil when its service is not
	// known or its container was not sampled.
	CPUCores *float64 `json:"cpu_cores,omitempty"`
}

// Stack says whose figures a record's are: the services of the target
// and the database, and where the pool lives (Pool.Service: the pooler,
// "" when there is none), which says how many sessions it lets the
// database see (sweep.PoolShape.Conns).
type Stack struct {
	Target, DB string
	Pool       sweep.PoolShape
}

// StackOf is the stack of a run of spec; db is the database's service.
// The pooler is the service that holds the pool when {pool_env} names
// another service than the target (PgBouncer's default_pool_size), else
// none: its CPU is then not read, its pool figures still are when the
// record has them. The target's replicas are not recorded: counted as 1.
func StackOf(spec sweep.Spec, db string) Stack {
	return Stack{Target: spec.Service, DB: db, Pool: spec.PoolShape(0)}
}

// successRate is the share of a level's attempts that succeeded. An
// attempt that failed to connect is no request (it is in none of m's
// request figures) but it is a failure of the SLO's success, as the
// study's k6 runs counted it.
func successRate(m results.Measurement) float64 {
	if m.ConnectErrors == 0 {
		return 1 - m.ErrorRate
	}
	ok := float64(m.Requests) * (1 - m.ErrorRate)
	return ok / float64(m.Requests+m.ConnectErrors)
}

// FromRecord reads a level from the record of its run; st names the
// services whose containers are the target, the database and the pooler.
func FromRecord(rec results.Record, st Stack) Level {
	l := Level{Requests: rec.Requests, SuccessRate: successRate(rec.Measurement), LatencyMS: rec.LatencyMS,
		ElapsedS: rec.DurationS}
	if l.ElapsedS == 0 {
		l.ElapsedS = rec.PhasesS["measure"]
	}
	l.Signals = Signals{DBPool: st.Pool.Conns(rec.Cell.DBPool, rec.Cell.WebThreads), Dropped: rec.DroppedIterations,
		Errors: rec.Errors}
	if rec.Status == results.StatusFailed {
		l.Signals.Failed = rec.Reason
	}
	if rec.Host != nil && rec.Host.CPUPressure != nil {
		l.Signals.HostCPUPressure = &rec.Host.CPUPressure.SomeShare
	}
	if p := rec.Pooler; p != nil && p.Samples > p.SamplesMissing {
		l.Signals.Pooler = &PoolerSignals{ClientsWaitingPeak: p.ClWaitingPeak, ServersActivePeak: p.SvActivePeak}
		if r, ok := rec.Resources[st.Pool.Service]; ok && st.Pool.Service != "" && r.Samples > 0 {
			l.Signals.Pooler.CPUCores = &r.CPUCoresMean
		}
	}
	target, db := st.Target, st.DB
	if r, ok := rec.Resources[target]; ok && r.Samples > 0 {
		l.TargetCPUPct = &r.CPUPctOfLimitMean
		if r.Periods > 0 {
			l.Signals.TargetThrottledPct = 100 * float64(r.ThrottledPeriods) / float64(r.Periods)
		}
	}
	if r, ok := rec.Resources[db]; ok && r.Samples > 0 {
		l.DBCPUPct = &r.CPUPctOfLimitMean
	}
	if rec.DB != nil && rec.DB.Samples > rec.DB.SamplesMissing {
		s := rec.DB.Sessions
		l.DBSessionsMean, l.DBSessionsPeak = &s.TotalMean, &s.TotalPeak
		l.Signals.DBActivePeak = s.ActivePeak
	}
	return l
}

// Check tells whether l meets the SLO and, when not, why: the failing
// terms with the values seen. A level whose run failed or that made no
// request fails whatever the terms say.
func (s SLO) Check(l Level) (bool, string) {
	switch {
	case l.Signals.Failed != "":
		return false, "run failed: " + l.Signals.Failed
	case l.Requests == 0:
		return false, "no requests completed"
	}
	var why []string
	for _, t := range s {
		if got, ok := t.holds(l); !ok {
			why = append(why, fmt.Sprintf("%s (got %s)", t, got))
		}
	}
	return len(why) == 0, strings.Join(why, "; ")
}

// slack absorbs binary noise, so 99 % of 100 requests meets success>=99%.
const slack = 1e-9

func (t Term) holds(l Level) (string, bool) {
	switch t.Metric {
	case "success":
		v := l.SuccessRate * 100
		return fmt.Sprintf("%.2f%%", v), v+slack >= t.Bound
	case "error":
		v := (1 - l.SuccessRate) * 100
		return fmt.Sprintf("%.2f%%", v), v-slack <= t.Bound
	}
	v := latency(l.LatencyMS, t.Metric)
	return fmt.Sprintf("%.2fms", v), v-slack <= t.Bound
}

func latency(l results.Latency, metric string) float64 {
	switch metric {
	case "avg":
		return l.Avg
	case "p50":
		return l.P50
	case "p90":
		return l.P90
	case "p95":
		return l.P95
	case "p99":
		return l.P99
	}
	return math.NaN()
}
