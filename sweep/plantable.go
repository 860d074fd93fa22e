package sweep

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// WritePlan prints every cell of s (its id, CPU limit, web threads, pool
// and the multiplier pairs that give it, or baseline) as a table, then the estimate
// and what it is made of (sweep plan).
func WritePlan(w io.Writer, s Spec) error {
	cells := s.Cells()
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("#", "cell", "cpus", "web threads", "db pool", "multipliers (web × db)")
	for i, c := range cells {
		pairs := make([]string, len(c.Mults))
		for j, m := range c.Mults {
			pairs[j] = FormatNumber(m[0]) + "×" + FormatNumber(m[1])
		}
		if c.Baseline {
			pairs = []string{"baseline"}
		}
		if err := t.Append(fmt.Sprint(i+1), c.ID, FormatNumber(c.CPUs), fmt.Sprint(c.WebThreads),
			fmt.Sprint(c.DBPool), strings.Join(pairs, " ")); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	est := s.Estimate()
	load := fmt.Sprintf("warm-up %s + measure %s", s.Warmup.Std(), s.Duration.Std())
	if est.Levels > 1 {
		load = fmt.Sprintf("up to %d search levels × (%s)", est.Levels, load)
	}
	controls := ""
	if est.Controls > 0 {
		controls = fmt.Sprintf(" + %d controls × (warm-up %s + measure %s + ~%s)", est.Controls,
			s.Warmup.Std(), RunControlDuration(s.Duration.Std()), CellOverhead)
	}
	_, err := fmt.Fprintf(w, "%d cells × %d repetitions × (%s + ~%s per cell)%s + ~%s to start and stop the stack ≈ %s\n",
		len(cells), max(s.Repeat, 1), load, CellOverhead, controls, StackOverhead, Round(est.Total))
	if err != nil {
		return err
	}
	return writeAdaptive(w, s)
}

// writeAdaptive says what the steady-state rule and automatic
// repetitions do to the figure above; nothing when neither is asked.
func writeAdaptive(w io.Writer, s Spec) error {
	var err error
	if s.Precision > 0 {
		_, err = fmt.Fprintf(w, "each warm-up ends once settled and each measured phase once steady within ±%s (never before %s): the figure above is the longest\n",
			FormatShare(s.Precision), s.MinDuration.Std())
	}
	if err == nil && s.RepeatAuto {
		_, err = fmt.Fprintf(w, "then the cells of every pick the report cannot separate from its runners-up are repeated until it can, up to %d repetitions each (not in the figure above)\n",
			s.MaxRepeat)
	}
	return err
}
