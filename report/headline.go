package report

// The answer a person acts on comes first: per CPU limit the run measured
// and per profile, the values to set in the run's own variable names, the
// cell (what sweep rerun takes) and how many pairs the data cannot
// separate there; then the commands that act on it, and the rule across
// CPU limits for budgets the run did not measure. Two things are named
// apart everywhere: the pick at a CPU limit (Pick.Chosen: the measured
// best, or settle's pick in its ties, the measured best then named
// beside it), and the rule across CPU limits (Profile's multipliers).

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sweep-tool/sweep/sweep"
)

// TerminalWidth is the most columns a line the terminal report prints
// may take; wider detail goes to report.md and report.html.
const TerminalWidth = 100

// LimitPick is a profile's pick at one CPU limit: Pick.Chosen is the
// cell to set, Pick.Cell the measured best.
type LimitPick struct {
	CPUs    float64
	Profile string // the profile's name (ProfileNames)
	Key     string // its key (ProfileKeys)
	Pick    Pick
}

// PickFor is the limit's measured best under the profile key and its
// ties: the best RPS for throughput, the best P99 for latency, the
// balanced cell for balanced; the zero Pick for another key.
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

// LimitPicks lists, per CPU limit ascending and per profile in report
// order, the profile's pick: what "Set these" shows and sweep export
// --cpus exports at a measured limit.
func (r *Report) LimitPicks() []LimitPick {
	var out []LimitPick
	for _, cr := range r.PerCPU {
		for _, rule := range profileRules {
			if p := cr.PickFor(rule.key); p.Cell != nil {
				out = append(out, LimitPick{CPUs: cr.CPUs, Profile: rule.name, Key: rule.key, Pick: p})
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

// headlineTitle heads the headline's table.
const headlineTitle = "Set these: the pick per CPU limit and profile"

// headlineTable is the pick per CPU limit and profile, for report.md and
// report.html (as wide as it needs): its figures, the cells the data
// cannot separate from it and how it was picked.
func headlineTable(rep *Report) table {
	t := table{Title: headlineTitle,
		Header: []string{"CPU", "profile", "set", "cell", "RPS", "P99 ms", "cannot separate (web/pool)", "pick"}}
	for _, b := range rep.LimitPicks() {
		c := b.Pick.Chosen()
		web, pool := rep.setting(c)
		t.Rows = append(t.Rows, []string{sweep.FormatNumber(b.CPUs), b.Profile, web + " " + pool, c.ID,
			formatEstimate(c.RPS, MetricRPS), formatEstimate(c.P99, MetricP99), cellList(b.Pick.Others()),
			orDefault(b.Pick.Note(), "the measured best")})
	}
	return t
}

// actParas are the commands that act on a row of the headline, for the
// run directory runDir ("RUN" when unknown), and the rule across CPU
// limits for budgets not measured.
func actParas(rep *Report, runDir string) []string {
	bests := rep.LimitPicks()
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
		fmt.Sprintf("Check a row: `sweep rerun %s %s` measures its cell once more.", runDir, last.Pick.Chosen().ID),
	}
	if rep.Noise.Pairing != nil { // a cell alone has no round to be read against
		paras[1] = "Check the rows: the same `sweep run` with more `--rounds` measures every cell in further rounds."
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
// and how many pairs the data cannot separate there, with the measured
// best where it is not the pick and a line saying how the pick was made;
// then the two commands for runDir and the rule across CPU limits. When
// the variables' names make the table too wide, its columns are "web"
// and "pool" and a line above names the variables.
func WriteHeadline(w io.Writer, rep *Report, runDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (run %s)\n", headlineTitle, rep.RunID)
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
	paras := append(actParas(rep, runDir), ruleIntro(runDir))
	if settledAny(rep) {
		paras = slices.Insert(paras, 0, settledPara)
	}
	for _, p := range paras {
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
	for _, m := range rep.LimitPicks() {
		c := m.Pick.Chosen()
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", sweep.FormatNumber(m.CPUs), m.Profile, c.WebThreads, c.DBPool,
			c.ID, setCount(m.Pick))
	}
	err := tw.Flush()
	return b.String(), err
}

// settledPara says, under the terminal's headline, how a row was picked
// among pairs the data cannot separate.
const settledPara = "Where the data cannot separate N pairs, a row's cell is the one with the fewest threads, " +
	"then the smallest pool, so two runs whose sets share it pick alike; \"best W/P\" is the cell measured best there."

// settledAny reports whether some row's pick was made among two or more.
func settledAny(rep *Report) bool {
	for _, m := range rep.LimitPicks() {
		if len(m.Pick.Ties) > 0 {
			return true
		}
	}
	return false
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

// setCount says how many pairs the data cannot separate at a pick's
// CPU limit ("none" when it separates the measured best from every
// other), with the measured best as web/pool where it is not the pick.
func setCount(p Pick) string {
	if len(p.Ties) == 0 {
		return "none"
	}
	s := fmt.Sprintf("%d pairs", len(p.Set()))
	if c := p.Cell; c != p.Chosen() {
		s += fmt.Sprintf("; best %d/%d", c.WebThreads, c.DBPool)
	}
	return s
}
