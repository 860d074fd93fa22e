package sweep

import (
	"fmt"
	"io"
	"strings"
	"time"

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
	if s.Interleaved() {
		return writeInterleaved(w, s, est)
	}
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

// writeInterleaved is the estimate of an interleaved run and how it
// spends it.
func writeInterleaved(w io.Writer, s Spec, est Estimate) error {
	rounds := fmt.Sprintf("%d rounds", est.Rounds)
	if s.RoundsAuto {
		rounds = "up to " + rounds
	}
	_, err := fmt.Fprintf(w, "%d targets × (~%s to start + warm-up %s + %s × a %s slice) + ~%s to start and stop the stack ≈ %s\n",
		est.Jobs, CellOverhead, s.Warmup.Std(), rounds, s.SliceLength(), StackOverhead, Round(est.Total))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "interleaved: the targets of each CPU limit run at once; each round gives every one a slice of load "+
		"in a fresh random order (seed %d) while the others idle; the rounds are the noise, no control cell runs\n", s.Seed)
	if err == nil && s.RoundsAuto {
		_, err = fmt.Fprintf(w, "rounds auto: a CPU limit's rounds stop once its picks' intervals are apart, at the latest when each cell had %s of load (--duration): the figure above is the longest\n",
			time.Duration(est.Rounds)*s.SliceLength())
	}
	return err
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
