package report

import (
	"fmt"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// The bottleneck labels, in the order the rules are tried.
const (
	BottleneckConn      = "conn-limit"
	BottleneckError     = "error-bound"
	BottleneckLoad      = "load-bound"
	BottleneckPool      = "pool-starved"
	BottleneckCPU       = "cpu-bound"
	BottleneckDB        = "db-bound"
	BottleneckHost      = "host-bound"
	BottleneckGenerator = "generator-bound"
	BottleneckNone      = "unsaturated"
)

// saturatedPct is the CPU share of its limit at which a container counts
// as saturated.
const saturatedPct = 85

// Legend explains each bottleneck label, in rule order: a cell gets the
// first label whose rule holds.
var Legend = []struct{ Label, Rule string }{
	{BottleneckConn, "sessions within 5 % of max_connections, \"too many clients\" in the target's log, or run over the connection limit"},
	{BottleneckError, "failed, or error rate above the bound"},
	{BottleneckLoad, "the load driver could not keep up (dropped iterations)"},
	{BottleneckPool, "peak active DB sessions reached the connections the pool allows (the pool; × web workers with a " +
		"pool per worker; a pooler's pool of server connections): requests wait for a connection"},
	{BottleneckCPU, "target CPU at or above 85 % of its limit"},
	{BottleneckDB, "another service (the database) at or above 85 % of its CPU limit, or sessions waiting on locks"},
	{BottleneckHost, "target CPU below 85 % of its limit, but at or above it with the CPU its threads waited for " +
		"(read where its processes are this machine's): other work on the host's CPUs held it back"},
	{BottleneckGenerator, fmt.Sprintf("host CPU pressure at or above %.0f %% of the phase, the load driver's CPU per "+
		"request at least %g of the target's, and the target below %d %% of its CPU limit (with the CPU it waited for, where read): "+
		"the generator, not the target, "+
		"set the pace", 100*results.GeneratorPressureShare, results.GeneratorCPUShare, results.GeneratorTargetPct)},
	{BottleneckNone, "metrics present and nothing near a limit: the offered load sets the pace"},
}

// bottleneck labels a cell; "" when the cell has no metrics to judge by.
// service is the target's, pool where its pool lived: the pool is
// starved when the sessions busy at once reach what it lets the database
// see (sweep.PoolShape.Conns, as sweep limits judges a level).
func bottleneck(c *Cell, service string, pool sweep.PoolShape, opts Options) string {
	switch {
	case c.Status == statusMissing || c.Status == statusScreened || c.Status == results.StatusSkipped:
		return ""
	case c.Status == results.StatusOK && nearConnLimit(c):
		return BottleneckConn
	case c.Status == results.StatusFailed || c.ErrorRate.Mean > opts.ErrorBound:
		return BottleneckError
	}
	var dropped int64
	var activePeak, waiting int
	var otherPct, wanted float64
	var waitRead int
	metrics := false
	for _, r := range c.reps {
		if w, ok := r.Resources[service].WantedPct(); ok {
			wanted += w
			waitRead++
		}
		dropped += r.DroppedIterations
		if r.DB != nil {
			metrics = true
			activePeak = max(activePeak, r.DB.Sessions.ActivePeak)
			waiting = max(waiting, r.DB.Sessions.WaitingPeak)
		}
		for name, u := range r.Resources {
			metrics = true
			if name != service {
				otherPct = max(otherPct, u.CPUPctOfLimitMean)
			}
		}
	}
	switch {
	case dropped > 0:
		return BottleneckLoad
	case !metrics:
		return ""
	case activePeak > 0 && activePeak >= pool.Conns(c.DBPool, c.WebThreads):
		return BottleneckPool
	case c.CPUPct != nil && c.CPUPct.Mean >= saturatedPct:
		return BottleneckCPU
	case otherPct >= saturatedPct || waiting > 0:
		return BottleneckDB
	case waitRead > 0 && wanted/float64(waitRead) >= saturatedPct:
		return BottleneckHost
	case c.Generator != "":
		return BottleneckGenerator
	}
	return BottleneckNone
}

// nearConnLimit reports whether an ok repetition came near or past the
// connection limit (results.Record.ConnLimit).
func nearConnLimit(c *Cell) bool {
	for _, r := range c.reps {
		if len(r.ConnLimit) > 0 {
			return true
		}
	}
	return false
}
