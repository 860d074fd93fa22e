package report

import "github.com/sweep-tool/sweep/results"

// PicksApart reports whether run's picks at CPU limit cpus are apart:
// every profile's best cell there (throughput, latency, balanced) has no
// cell the data cannot separate from it. An interleaved run's automatic
// rounds stop once they are (sweep.Runner.EnoughRounds). false when the
// run has no analysis at cpus yet.
func PicksApart(run *results.Run, cpus float64, opts Options) bool {
	rep, err := BuildPicks(run, opts)
	if err != nil {
		return false
	}
	for _, cr := range rep.PerCPU {
		if cr.CPUs != cpus {
			continue
		}
		for _, p := range []Pick{cr.BestRPS, cr.BestP99, cr.Balanced} {
			if p.Cell == nil || len(p.Ties) > 0 {
				return false
			}
		}
		return true
	}
	return false
}
