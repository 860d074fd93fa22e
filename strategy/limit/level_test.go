package limit

import (
	"math"
	"testing"

	"github.com/sweep-tool/sweep/results"
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
			l := FromRecord(rec, "app", "db")
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
