package limit

import (
	"math"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestFromRecordReadings: a service's CPU counts only when it was sampled,
// and throttling only over periods that were counted.
func TestFromRecordReadings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		app, db   results.ResourceStats
		targetPct float64 // -1: none
		throttled float64
		dbPct     float64 // -1: none
	}{
		{"not sampled", results.ResourceStats{CPUPctOfLimitMean: 50}, results.ResourceStats{CPUPctOfLimitMean: 20},
			-1, 0, -1},
		{"sampled once", results.ResourceStats{CPUPctOfLimitMean: 50, Samples: 1},
			results.ResourceStats{CPUPctOfLimitMean: 20, Samples: 1}, 50, 0, 20},
		{"no periods counted", results.ResourceStats{CPUPctOfLimitMean: 50, Samples: 3, ThrottledPeriods: 2},
			results.ResourceStats{}, 50, 0, -1},
		{"one period of four throttled", results.ResourceStats{CPUPctOfLimitMean: 50, Samples: 3, Periods: 4, ThrottledPeriods: 1},
			results.ResourceStats{}, 50, 25, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rec := results.Record{Status: results.StatusOK, Measurement: results.Measurement{Requests: 10},
				Resources: map[string]results.ResourceStats{"app": tc.app, "db": tc.db}}
			l := FromRecord(rec, Stack{Target: "app", DB: "db"})
			if got := pctOrNone(l.TargetCPUPct); got != tc.targetPct {
				t.Errorf("target CPU %v, want %v", got, tc.targetPct)
			}
			if got := l.Signals.TargetThrottledPct; got != tc.throttled || math.IsNaN(got) {
				t.Errorf("throttled %v %%, want %v", got, tc.throttled)
			}
			if got := pctOrNone(l.DBCPUPct); got != tc.dbPct {
				t.Errorf("database CPU %v, want %v", got, tc.dbPct)
			}
		})
	}
}

func pctOrNone(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}

// TestFromRecordPoolerAndSessionsAllowed: a pooler's figures come from the
// record's pooler block and its service's container; a pool per web
// worker lets the database see web threads × pool sessions.
func TestFromRecordPoolerAndSessionsAllowed(t *testing.T) {
	t.Parallel()
	rec := results.Record{Status: results.StatusOK, Measurement: results.Measurement{Requests: 10},
		Cell: results.CellInfo{WebThreads: 4, DBPool: 8},
		Resources: map[string]results.ResourceStats{
			"app":       {CPUPctOfLimitMean: 90, Samples: 3},
			"pgbouncer": {CPUCoresMean: 0.93, CPUPctOfLimitMean: 46.5, Samples: 3},
		},
		Pooler: &results.PoolerStats{ClWaitingPeak: 17, SvActivePeak: 8, Samples: 3, SamplesMissing: 1},
		Host:   &results.HostStats{CPUPressure: &results.CPUPressure{SomeShare: 0.61}}}

	php := FromRecord(rec, Stack{Target: "app", DB: "db", Pool: sweep.PoolShape{Service: "pgbouncer"}})
	p := php.Signals.Pooler
	switch {
	case p == nil || p.CPUCores == nil:
		t.Fatalf("pooler %+v, want its figures and CPU", p)
	case *p.CPUCores != 0.93 || p.ClientsWaitingPeak != 17 || p.ServersActivePeak != 8:
		t.Errorf("pooler %+v cores %v, want 0.93 cores, 17 waiting, 8 busy", p, *p.CPUCores)
	case php.Signals.DBPool != 8:
		t.Errorf("pool allows %d sessions, want the pool, 8", php.Signals.DBPool)
	case php.Signals.HostCPUPressure == nil || *php.Signals.HostCPUPressure != 0.61:
		t.Errorf("host CPU pressure %v, want 0.61", php.Signals.HostCPUPressure)
	}

	unnamed := FromRecord(rec, Stack{Target: "app", DB: "db"})
	if p := unnamed.Signals.Pooler; p == nil || p.CPUCores != nil || p.ClientsWaitingPeak != 17 {
		t.Errorf("pooler without its service: %+v, want the waiting clients and no CPU", p)
	}

	node := FromRecord(rec, Stack{Target: "app", DB: "db", Pool: sweep.PoolShape{PerWeb: true}})
	if node.Signals.DBPool != 32 {
		t.Errorf("a pool of 8 per each of 4 workers allows %d sessions, want 32", node.Signals.DBPool)
	}

	rec.Pooler = &results.PoolerStats{Samples: 2, SamplesMissing: 2}
	if p := FromRecord(rec, Stack{Target: "app", Pool: sweep.PoolShape{Service: "pgbouncer"}}).Signals.Pooler; p != nil {
		t.Errorf("a pooler that never answered: %+v, want none", p)
	}
}

// TestStackOf: the pooler is the service the pool lives in, never the
// target; the database's service is the one given.
func TestStackOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		poolEnv string
		perWeb  bool
		want    Stack
	}{
		{"pgbouncer:DEFAULT_POOL_SIZE", false, Stack{Target: "app", DB: "db", Pool: sweep.PoolShape{Service: "pgbouncer"}}},
		{"BOX_DB_POOL_MAXIMUM_POOL_SIZE", true, Stack{Target: "app", DB: "db", Pool: sweep.PoolShape{PerWeb: true}}},
		{"app:POOL", false, Stack{Target: "app", DB: "db"}},
	} {
		spec := sweep.Spec{Service: "app", PoolEnv: tc.poolEnv, PoolPerWeb: tc.perWeb}
		if got := StackOf(spec, "db"); got != tc.want {
			t.Errorf("StackOf(pool_env %s) = %+v, want %+v", tc.poolEnv, got, tc.want)
		}
	}
}
