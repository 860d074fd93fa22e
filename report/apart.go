package report

import (
	"fmt"
	"slices"

	"github.com/sweep-tool/sweep/results"
)

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

// Separated is the rule of a halving rung on interleaved rounds
// (sweep.Runner.Cut): the cells of run at CPU limit cpus that the data
// separates from every profile's best there — no profile's pick and not
// among the cells the data cannot separate from one (Pick.Ties: their 95
// % intervals, paired by round, overlap the pick's) — or that can never
// win (ineligible: failed slices, errors above the bound); for each, why,
// with its figures against the picks'. A baseline cell is never
// separated (the gains need it). note says, when none is, why: no
// analysis yet, or every cell within the picks' intervals.
func Separated(run *results.Run, cpus float64, opts Options) (drop []string, why map[string]string, note string) {
	rep, err := BuildPicks(run, opts)
	if err != nil {
		return nil, nil, "no analysis of the rounds: " + err.Error()
	}
	i := slices.IndexFunc(rep.PerCPU, func(cr *CPUReport) bool { return cr.CPUs == cpus })
	if i < 0 {
		return nil, nil, "no cell is eligible yet"
	}
	cr := rep.PerCPU[i]
	picks := []Pick{cr.BestRPS, cr.BestP99, cr.Balanced}
	if slices.ContainsFunc(picks, func(p Pick) bool { return p.Cell == nil }) {
		return nil, nil, "a profile has no pick yet"
	}
	keep := map[string]bool{}
	for _, p := range picks {
		keep[p.Cell.ID] = true
		for _, c := range p.Ties {
			keep[c.ID] = true
		}
	}
	why = map[string]string{}
	for _, c := range cr.Cells {
		if keep[c.ID] {
			continue
		}
		drop = append(drop, c.ID)
		if c.Ineligible != "" {
			why[c.ID] = "cannot win: " + c.Ineligible
			continue
		}
		why[c.ID] = fmt.Sprintf("95 %% paired intervals over %d rounds apart from every pick's: RPS %s against the best's %s, "+
			"p99 %s ms against the lowest's %s ms, and not tied with the balanced pick %s",
			c.RPS.N, span(c.RPS), span(cr.BestRPS.Cell.RPS), span(c.P99), span(cr.BestP99.Cell.P99), cr.Balanced.Cell.ID)
	}
	if len(drop) == 0 {
		return nil, nil, fmt.Sprintf("every one of the %d cells is a pick or within a pick's 95 %% paired interval", len(cr.Cells))
	}
	return drop, why, ""
}

// span renders an estimate's interval.
func span(e Estimate) string {
	return fmt.Sprintf("[%.4g, %.4g]", e.Lo, e.Hi)
}
