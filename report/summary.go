package report

import (
	"fmt"
	"strings"
)

// profileTable is the recommendation across CPU limits.
func profileTable(rep *Report) table {
	t := table{
		Title:  "Rule across CPU limits (for budgets not measured)",
		Header: []string{"profile", "for", rep.WebEnv, rep.PoolEnv, "cannot separate", "measured best"},
	}
	for _, p := range rep.Profiles {
		if !p.Found {
			t.Rows = append(t.Rows, []string{p.Name, p.Use, "-", "-", p.Note, "-"})
			continue
		}
		best := "the pick"
		if p.Best != [2]float64{p.WebMult, p.DBMult} {
			best = pairList([][2]float64{p.Best})
		}
		t.Rows = append(t.Rows, []string{p.Name, p.Use,
			fmt.Sprintf("%g x CPU_COUNT", p.WebMult),
			fmt.Sprintf("%g x %s", p.DBMult, rep.WebEnv),
			pairList(p.Others()), best})
		if p.Note != "" {
			t.Note = strings.TrimPrefix(t.Note+"; "+p.Name+": "+p.Note, "; ")
		}
	}
	return t
}

func pairList(pairs [][2]float64) string {
	if len(pairs) == 0 {
		return "none"
	}
	parts := make([]string, len(pairs))
	for i, p := range pairs {
		parts[i] = fmt.Sprintf("web %g x, pool %g x", p[0], p[1])
	}
	return strings.Join(parts, "; ")
}

// goal is a row of the per-CPU table: a winner under one goal.
type goal struct {
	name string
	p    Pick
}

// perCPUTable lists each CPU limit's winners and their ties (the best
// safe limit too when the cells searched one).
func perCPUTable(rep *Report) table {
	t := table{
		Title:  "Measured best per CPU limit",
		Header: []string{"CPU", "profile", "cell", "RPS", "P99 ms", "error %", "cannot separate (web/pool)"},
	}
	for _, cr := range rep.PerCPU {
		var goals []goal
		for _, rule := range profileRules {
			goals = append(goals, goal{rule.name, cr.PickFor(rule.key)})
		}
		if c := cr.BestLimit.Cell; c != nil {
			name := fmt.Sprintf("best safe limit (%s %s)", c.SafeLimit.Model, limitText(c.SafeLimit))
			goals = append(goals, goal{name, cr.BestLimit})
		}
		for _, g := range goals {
			c := g.p.Cell
			t.Rows = append(t.Rows, []string{fmt.Sprint(cr.CPUs), g.name, cellLabel(c),
				formatEstimate(c.RPS, MetricRPS), formatEstimate(c.P99, MetricP99),
				formatEstimate(*c.value(MetricErrors), MetricErrors), cellList(g.p.Ties)})
		}
	}
	return t
}

func cellLabel(c *Cell) string {
	return fmt.Sprintf("web %d / pool %d (%g x, %g x)", c.WebThreads, c.DBPool, c.WebMult, c.DBMult)
}

func cellList(cells []*Cell) string {
	if len(cells) == 0 {
		return "none: separated"
	}
	parts := make([]string, len(cells))
	for i, c := range cells {
		parts[i] = fmt.Sprintf("%d/%d", c.WebThreads, c.DBPool)
	}
	return strings.Join(parts, ", ")
}

// scalingTable shows best RPS per CPU limit against linear.
func scalingTable(rep *Report) table {
	s := rep.Scaling
	t := table{
		Title:  "Scaling across CPU limits",
		Header: []string{"CPU", "best cell", "best RPS", "RPS per core", "efficiency vs linear"},
	}
	for _, p := range s.Points {
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.CPUs), p.Cell, fmt.Sprintf("%.0f", p.BestRPS),
			fmt.Sprintf("%.0f", p.RPSPerCore), fmt.Sprintf("%.0f %%", 100*p.Efficiency)})
	}
	if s.Fitted {
		verdict := "not linear"
		if s.NearLinear {
			verdict = "near-linear"
		}
		t.Note = fmt.Sprintf("least-squares line: best RPS = %.0f + %.0f x CPU (R² %.3f): %s",
			s.Intercept, s.Slope, s.R2, verdict)
	}
	return t
}

// frontierTable lists one CPU limit's Pareto frontier.
func frontierTable(cr *CPUReport) table {
	t := table{
		Title:  fmt.Sprintf("CPU %g: Pareto frontier (RPS vs P99)", cr.CPUs),
		Header: []string{"cell", "P99 ms", "RPS", "balanced score"},
	}
	for _, c := range cr.Frontier {
		t.Rows = append(t.Rows, []string{cellLabel(c), formatEstimate(c.P99, MetricP99),
			formatEstimate(c.RPS, MetricRPS), fmt.Sprintf("%.2f", c.Score)})
	}
	return t
}

// poolTable shows what the pool multiplier changes at fixed web threads.
func poolTable(rep *Report) table {
	pe := rep.PoolEffect
	t := table{
		Title:  "Pool multiplier effect (vs the best pool of the same row)",
		Header: []string{"pool x web", "mean RPS / row best", "mean row best P99 / P99", "rows"},
	}
	for _, m := range pe.ByDBMult {
		t.Rows = append(t.Rows, []string{fmt.Sprint(m.DBMult), fmt.Sprintf("%.1f %%", 100*m.RPSRel),
			fmt.Sprintf("%.1f %%", 100*m.P99Rel), fmt.Sprint(m.Rows)})
	}
	verdict := "the pool multiplier matters beyond noise"
	if pe.WithinNoise {
		verdict = "the pool multiplier is within noise"
	}
	t.Note = fmt.Sprintf("spread %.1f %% (RPS), %.1f %% (P99); %d of %d cells equivalent to their row's best RPS: %s",
		100*pe.RPSSpread, 100*pe.P99Spread, pe.CellsWithinNoise, pe.Cells, verdict)
	return t
}

// legendTable explains the bottleneck labels.
func legendTable() table {
	t := table{Title: "Bottleneck legend (first rule that holds)", Header: []string{"label", "rule"}}
	for _, l := range Legend {
		t.Rows = append(t.Rows, []string{l.Label, l.Rule})
	}
	return t
}
