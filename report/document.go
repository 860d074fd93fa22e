package report

import (
	"fmt"
	"slices"
	"strings"
)

// section is one heading of report.md and report.html: the two documents
// are the same sections rendered two ways.
type section struct {
	Heading string
	Paras   []string
	Tables  []table
	Charts  []Chart
	Links   []link
}

// document lays out the report's sections.
func document(rep *Report, charts []Chart) []section {
	byFile := map[string]Chart{}
	var heat []Chart
	for _, c := range charts {
		byFile[c.File] = c
		if strings.HasPrefix(c.File, "heatmap-") {
			heat = append(heat, c)
		}
	}
	var front []table
	for _, cr := range rep.PerCPU {
		front = append(front, frontierTable(cr))
	}
	secs := []section{
		{Heading: "Set these", Paras: append(actParas(rep, rep.runDir), ruleIntro(rep.runDir)+" see the next section."),
			Tables: []table{headlineTable(rep)}},
		{Heading: "Rule across CPU limits", Paras: recommendationParas(rep), Tables: []table{profileTable(rep)}},
		{Heading: "Measured best per CPU limit, in detail", Tables: []table{perCPUTable(rep)}},
		poolRuleSection(rep),
		{Heading: "Scaling", Paras: uslParas(rep), Tables: append([]table{scalingTable(rep)}, uslTables(rep)...),
			Charts: []Chart{byFile["scaling.svg"]}},
		{Heading: "Pareto frontier", Tables: front, Charts: []Chart{byFile["pareto.svg"]}},
		{Heading: "Heatmaps", Charts: heat},
		{Heading: "Matrices", Tables: matrices(rep)},
	}
	if t, ok := baselineTable(rep); ok {
		secs = slices.Insert(secs, 2, section{Heading: "Against the baseline", Tables: []table{t}})
	}
	if bt := breakdownTables(rep); len(bt) > 0 {
		secs = append(secs, section{Heading: "Latency breakdown", Tables: bt})
	}
	if bt := bottleneckTables(rep); len(bt) > 0 {
		secs = append(secs, section{Heading: "Bottlenecks", Tables: append(bt, legendTable())})
	}
	secs = append(secs, section{Heading: "Pool multiplier", Tables: []table{poolTable(rep)}})
	if sec, ok := k6DashboardSection(rep); ok {
		secs = append(secs, sec)
	}
	return secs
}

// poolRuleSection is the rule of thumb beside the measured best pools,
// or why it is missing.
func poolRuleSection(rep *Report) section {
	sec := section{Heading: "Pool size: rule of thumb", Paras: poolRuleParas(rep)}
	if t, ok := poolRuleTable(rep); ok {
		sec.Tables = []table{t}
	}
	return sec
}

// introParas say what the report rests on.
func introParas(rep *Report) []string {
	paras := []string{fmt.Sprintf("Run %s: %d cells planned, %d CPU limits with results. Cells whose error rate "+
		"exceeds %g %% never win. Noise: %s.", rep.RunID, len(rep.Cells), len(rep.PerCPU),
		100*rep.Options.ErrorBound, rep.NoiseNote())}
	if note := missingNote(rep); note != "" {
		paras = append(paras, strings.TrimSpace(note))
	}
	if note := generatorCheckNote(rep); note != "" {
		paras = append(paras, note)
	}
	return paras
}

func recommendationParas(rep *Report) []string {
	var paras []string
	if note := strategyNote(rep); note != "" {
		paras = append(paras, note)
	}
	if rep.MaxRepeat > 0 {
		paras = append(paras, fmt.Sprintf("Repetitions were automatic: the cells of each pick and of every pair "+
			"the data could not separate from it were measured again until their intervals parted, up to %d "+
			"repetitions a cell; the equivalents named below are the ties that remained.", rep.MaxRepeat))
	}
	if rep.Pool.Service != "" {
		paras = append(paras, fmt.Sprintf("The pool size went to service %s (%s), recreated with every cell, "+
			"not to the target: the database's server connections are that service's pool.", rep.Pool.Service, rep.PoolEnv))
	}
	if rep.Pool.PerWeb {
		paras = append(paras, fmt.Sprintf("%s is per web worker (pool-per-web): every one of the %s workers "+
			"holds a pool of its own, so the database saw up to %s × %s connections per replica.",
			rep.PoolEnv, rep.WebEnv, rep.WebEnv, rep.PoolEnv))
	}
	for _, p := range rep.Profiles {
		if !p.Found {
			paras = append(paras, fmt.Sprintf("%s: %s.", p.Name, p.Note))
			continue
		}
		s := fmt.Sprintf("%s (%s): %s = %g × CPU_COUNT, %s = %g × %s.", p.Name, p.Use,
			rep.WebEnv, p.WebMult, rep.PoolEnv, p.DBMult, rep.WebEnv)
		if note := p.PickNote(); note != "" {
			s += " " + upperFirst(note) + "."
		}
		if len(p.Equivalent) > 0 {
			best := "it"
			if p.Best != [2]float64{p.WebMult, p.DBMult} {
				best = "the measured best"
			}
			s += fmt.Sprintf(" The data cannot separate %s from: %s%s.", best, pairList(p.Equivalent), tieNote(rep))
		}
		if len(p.Likely) > 0 {
			s += fmt.Sprintf(" A re-run on this host may also pick: %s.", pairList(p.Likely))
		}
		if c, ok := rep.calibrationOf(p.Key); ok {
			s += " " + upperFirst(c.Sentence()) + "."
		}
		if p.Note != "" {
			s += " Note: " + p.Note + "."
		}
		paras = append(paras, s)
	}
	if s := rep.Noise.NotMeasured(); s != "" {
		paras = append(paras, upperFirst(s)+".")
	}
	return append(paras, "Balanced is, per CPU limit, the cell maximising normalised RPS minus normalised P99 "+
		"(each scaled to 0..1 over that limit's eligible cells): the knee of the Pareto frontier where throughput "+
		"gained and latency paid count equally. Across CPU limits a profile's measured best is the multiplier pair "+
		"with the best mean objective (RPS / best RPS, best P99 / P99, or the balanced score) over all limits; "+
		"where the data cannot separate it from other pairs, the profile takes the one with the fewest threads, "+
		"then the smallest pool, as a CPU limit's row does.")
}

func matrices(rep *Report) []table {
	var out []table
	for _, m := range Metrics {
		if !rep.HasMetric(m) {
			continue
		}
		for _, cr := range rep.PerCPU {
			out = append(out, matrixTable(rep, cr, m))
		}
	}
	return out
}

func bottleneckTables(rep *Report) []table {
	var out []table
	for _, cr := range rep.PerCPU {
		if t, ok := bottleneckTable(cr); ok {
			out = append(out, t)
		}
	}
	return out
}

// tieNote marks the equivalents of a run with automatic repetitions as
// ties that remained at the cap.
func tieNote(rep *Report) string {
	if rep.MaxRepeat == 0 {
		return ""
	}
	return fmt.Sprintf(" (a tie that remained after up to %d repetitions)", rep.MaxRepeat)
}
