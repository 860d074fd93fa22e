package report

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// sessions gives a repetition DB figures: peak active and waiting sessions.
func sessions(active, waiting int) func(*results.Rep) {
	return func(r *results.Rep) {
		r.DB = &results.DBStats{Sessions: results.DBSessions{ActivePeak: active, WaitingPeak: waiting}}
	}
}

// cpuPct gives a repetition the target's and the database's CPU in % of
// their limits.
func cpuPct(app, db float64) func(*results.Rep) {
	return func(r *results.Rep) {
		r.Resources = map[string]results.ResourceStats{"app": {CPUPctOfLimitMean: app}, "db": {CPUPctOfLimitMean: db}}
	}
}

// waited gives a repetition the target's CPU in % of its 1-CPU limit and
// the cores its threads waited for.
func waited(app, cores float64) func(*results.Rep) {
	return func(r *results.Rep) {
		r.Resources = map[string]results.ResourceStats{"app": {CPUPctOfLimitMean: app, CPULimitCores: 1, CPUWaitCoresMean: &cores}}
	}
}

// TestBottleneckBounds takes each label to the edge of its rule (pool 4,
// error bound 1 %, saturation at 85 % CPU), in the rules' order.
func TestBottleneckBounds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		reps []results.Rep
		want string
	}{
		{"not measured", nil, ""},
		{"failed", []results.Rep{failedRep("boom")}, BottleneckError},
		{"errors above the bound", []results.Rep{okRep(100, 5, 0.0101, cpuPct(10, 10))}, BottleneckError},
		{"errors at the bound", []results.Rep{okRep(100, 5, 0.01, cpuPct(10, 10))}, BottleneckNone},
		{"no metrics", []results.Rep{okRep(100, 5, 0)}, ""},
		{"dropped iterations", []results.Rep{okRep(100, 5, 0, dropped(1))}, BottleneckLoad},
		{"dropped before pool", []results.Rep{okRep(100, 5, 0, dropped(1), sessions(4, 0))}, BottleneckLoad},
		{"active sessions reach the pool", []results.Rep{okRep(100, 5, 0, sessions(4, 0))}, BottleneckPool},
		{"active sessions one below the pool", []results.Rep{okRep(100, 5, 0, sessions(3, 0))}, BottleneckNone},
		{"pool reached in one repetition", []results.Rep{okRep(100, 5, 0, sessions(1, 0)), okRep(100, 5, 0, sessions(4, 0))},
			BottleneckPool},
		{"target CPU at 85 %", []results.Rep{okRep(100, 5, 0, cpuPct(85, 10))}, BottleneckCPU},
		{"target CPU just below 85 %", []results.Rep{okRep(100, 5, 0, cpuPct(84.9, 10))}, BottleneckNone},
		{"database CPU at 85 %", []results.Rep{okRep(100, 5, 0, cpuPct(10, 85))}, BottleneckDB},
		{"database CPU just below 85 %", []results.Rep{okRep(100, 5, 0, cpuPct(10, 84.9))}, BottleneckNone},
		{"sessions waiting on locks", []results.Rep{okRep(100, 5, 0, sessions(1, 1))}, BottleneckDB},
		{"target before database", []results.Rep{okRep(100, 5, 0, cpuPct(90, 90))}, BottleneckCPU},
		{"target waited up to 85 %", []results.Rep{okRep(100, 5, 0, waited(40, 0.45))}, BottleneckHost},
		{"target waited to just below 85 %", []results.Rep{okRep(100, 5, 0, waited(40, 0.449))}, BottleneckNone},
		{"waits read in one repetition of two", []results.Rep{okRep(100, 5, 0, waited(40, 0.5)), okRep(100, 5, 0, cpuPct(40, 10))},
			BottleneckHost},
		{"target's own CPU first", []results.Rep{okRep(100, 5, 0, waited(85, 1))}, BottleneckCPU},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := results.RunCell{CellInfo: results.CellInfo{ID: "c", CPUs: 1, WebThreads: 2, DBPool: 4}, Reps: tc.reps}
			if got := summarise(rc, "app", sweep.PoolShape{}, DefaultOptions()).Bottleneck; got != tc.want {
				t.Errorf("bottleneck = %q, want %q", got, tc.want)
			}
		})
	}
}
