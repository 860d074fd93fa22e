package report

// The answer a person acts on comes first: per CPU limit the run measured
// and per profile, the values to set in the run's own variable names, the
// cell (what sweep rerun takes) and the pairs the data cannot separate
// from it; then the commands that act on it, and the rule across CPU
// limits for budgets the run did not measure. Two things are named apart
// everywhere: the measured best cell at a CPU limit, and the rule across
// CPU limits (Profile's multipliers).

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sweep-tool/sweep/sweep"
)

// TerminalWidth is the most columns a line the terminal report prints
// may take; wider detail goes to report.md and report.html.
const TerminalWidth = 100

// MeasuredBest is a profile's best measured cell at one CPU limit.
type MeasuredBest struct {
	CPUs    float64
	Profile string // the profile's name (ProfileNames)
	Key     string // its key (ProfileKeys)
	Pick    Pick
}

// PickFor is the limit's measured best under the profile key: the best
// RPS for throughput, the best P99 for latency, the balanced cell for
// balanced; the zero Pick for another key.
func (cr *CPUReport) PickFor(key string) Pick {
	switch key {
	case "throughput":
		return cr.BestRPS
	case "latency":
		return cr.BestP99
	case "balanced":
		return cr.Balanced
	}
	return Pick{}
}

// MeasuredBests lists, per CPU limit ascending and per profile in report
// order, the measured best cell.
func (r *Report) MeasuredBests() []MeasuredBest {
	var out []MeasuredBest
	for _, cr := range r.PerCPU {
		for _, rule := range profileRules {
			if p := cr.PickFor(rule.key); p.Cell != nil {
				out = append(out, MeasuredBest{CPUs: cr.CPUs, Profile: rule.name, Key: rule.key, Pick: p})
			}
		}
	}
	return out
}

// setting is "NAME=value" for the run's variables: the web threads', and
// the pool's (in its service when the pool went to another one).
func (r *Report) setting(c *Cell) (web, pool string) {
	web = fmt.Sprintf("%s=%d", r.WebEnv, c.WebThreads)
	target := (sweep.Spec{PoolEnv: r.PoolEnv}).PoolTarget()
	pool = fmt.Sprintf("%s=%d", target.Name, c.DBPool)
	if target.Service != "" {
		pool += " (in " + target.Service + ")"
	}
	return web, pool
}

// headlineTable is the measured best per CPU limit and profile, for
// report.md and report.html (as wide as it needs).
func headlineTable(rep *Report) table {
	t := table{Title: "Set these: the measured best cell per CPU limit and profile",
		Header: []string{"CPU", "profile", "set", "cell", "RPS", "P99 ms", "cannot separate (web/pool)"}}
	for _, b := range rep.MeasuredBests() {
		web, pool := rep.setting(b.Pick.Cell)
		t.Rows = append(t.Rows, []string{sweep.FormatNumber(b.CPUs), b.Profile, web + " " + pool, b.Pick.Cell.ID,
			formatEstimate(b.Pick.Cell.RPS, MetricRPS), formatEstimate(b.Pick.Cell.P99, MetricP99), cellList(b.Pick.Ties)})
	}
	return t
}

// actParas are the commands that act on a row of the headline, for the
// run directory runDir ("RUN" when unknown), and the rule across CPU
// limits for budgets not measured.
func actParas(rep *Report, runDir string) []string {
	bests := rep.MeasuredBests()
	if len(bests) == 0 {
		return nil
	}
	runDir = orDefault(runDir, "RUN")
	last := bests[len(bests)-1]
	for _, b := range bests {
		if b.CPUs == last.CPUs && b.Key == "balanced" {
			last = b
		}
	}
	paras := []string{
		fmt.Sprintf("Deploy a row: `sweep export %s --cpus %s --profile %s` writes its values for your stack "+
			"(--format env, compose or kubernetes).", runDir, sweep.FormatNumber(last.CPUs), last.Profile),
		fmt.Sprintf("Check a row: `sweep rerun %s %s` measures its cell once more.", runDir, last.Pick.Cell.ID),
	}
	return paras
}

// ruleRows are the rule across CPU limits per profile: its name, the web
// threads' rule and the pool's (or why there is none).
func ruleRows(rep *Report, web string) [][3]string {
	var out [][3]string
	for _, p := range rep.Profiles {
		if !p.Found {
			out = append(out, [3]string{p.Name, "none: " + p.Note, ""})
			continue
		}
		out = append(out, [3]string{p.Name, fmt.Sprintf("%s = %s × CPUs", web, sweep.FormatNumber(p.WebMult)),
			fmt.Sprintf("pool = %s × %s", sweep.FormatNumber(p.DBMult), web)})
	}
	return out
}

// ruleIntro introduces the rule across CPU limits.
func ruleIntro(runDir string) string {
	return fmt.Sprintf("For a budget not measured, the rule across CPU limits (`sweep export %s --cpus C --profile P` applies it):",
		orDefault(runDir, "RUN"))
}

// WriteHeadline prints the recommendation first, as values, within
// TerminalWidth: per CPU limit and profile the values to set, the cell
// and how many pairs the data cannot separate from it; then the two
// commands for runDir and the rule across CPU limits. When the
// variables' names make the table too wide, its columns are "web" and
// "pool" and a line above names the variables.
func WriteHeadline(w io.Writer, rep *Report, runDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Set these: the measured best cell per CPU limit and profile (run %s)\n", rep.RunID)
	rows, err := headlineRows(rep, rep.WebEnv, poolHeader(rep))
	if err != nil {
		return err
	}
	if widest(rows) > TerminalWidth {
		fmt.Fprintf(&b, "web: %s, pool: %s\n", rep.WebEnv, poolHeader(rep))
		if rows, err = headlineRows(rep, "web", "pool"); err != nil {
			return err
		}
	}
	b.WriteString(rows)
	for _, p := range append(actParas(rep, runDir), ruleIntro(runDir)) {
		b.WriteString(sweep.Wrap(strings.ReplaceAll(p, "`", ""), TerminalWidth, "  ") + "\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range ruleRows(rep, "web") {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", r[0], r[1], r[2])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	b.WriteString("\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// headlineRows is the headline's table with the two variables' columns
// headed web and pool.
func headlineRows(rep *Report, web, pool string) (string, error) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "CPU\tprofile\t%s\t%s\tcell\tcannot separate\n", web, pool)
	for _, m := range rep.MeasuredBests() {
		c := m.Pick.Cell
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", sweep.FormatNumber(m.CPUs), m.Profile, c.WebThreads, c.DBPool,
			c.ID, tieCount(m.Pick.Ties))
	}
	err := tw.Flush()
	return b.String(), err
}

// widest is the most columns a line of text takes.
func widest(text string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		n = max(n, len([]rune(line)))
	}
	return n
}

// poolHeader is the pool's variable, with its service when it went to
// another one.
func poolHeader(rep *Report) string {
	target := (sweep.Spec{PoolEnv: rep.PoolEnv}).PoolTarget()
	if target.Service != "" {
		return target.Name + " (" + target.Service + ")"
	}
	return target.Name
}

// tieCount says how many pairs the data cannot separate from a pick.
func tieCount(ties []*Cell) string {
	switch len(ties) {
	case 0:
		return "none"
	case 1:
		return "1 pair"
	}
	return fmt.Sprintf("%d pairs", len(ties))
}
