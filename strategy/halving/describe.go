package halving

import (
	"cmp"
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// screenFidelity is how round k (1, 2, …) of the screening rounds
// measures: fixed phases, one repetition.
func screenFidelity(r Round, k int) *sweep.Fidelity {
	return &sweep.Fidelity{Round: k, Warmup: r.Warmup, Duration: r.Duration}
}

// FinalFidelity is how plan p's finals measure under spec (further
// repetitions of a finalist too): see finalFidelity.
func FinalFidelity(spec sweep.Spec, p Plan) *sweep.Fidelity {
	return finalFidelity(spec, p.Rounds[len(p.Rounds)-1], len(p.Rounds))
}

// finalFidelity is how the final round (number n) measures under spec:
// the round's longest phases, stopped at the spec's precision, never
// before the spec's minimum when it gives one (else the round's).
func finalFidelity(spec sweep.Spec, final Round, n int) *sweep.Fidelity {
	return &sweep.Fidelity{Round: n, Warmup: final.Warmup, Duration: final.Duration,
		MinDuration: min(final.Duration, cmp.Or(spec.MinDuration.Std(), final.MinDuration)), Precision: spec.Precision}
}

// Describe returns the lines `sweep plan` prints about the strategies
// for spec: the worst-case wall time of the grid and of halving with
// plan p (the same per-cell overhead as spec.Estimate), and p's rounds.
func Describe(spec sweep.Spec, p Plan) []string {
	if spec.HalvingRounds() {
		return describeRounds(spec)
	}
	cells := len(spec.Cells())
	t := WorstTimes(cells, spec.Repeat, sweep.CellOverhead, spec.Warmup.Std(), spec.Duration.Std(), p)
	grid := spec
	grid.Strategy = ""
	est := grid.Estimate() // the grid's controls, when it measures them
	lines := []string{
		fmt.Sprintf("worst case, grid: %s, every cell in full",
			sweep.Round(t.Grid+time.Duration(est.Controls)*est.PerControl+sweep.StackOverhead)),
		fmt.Sprintf("worst case, halving: %s, if every cell survived every round; "+
			"it ends sooner by what each round screens out", sweep.Round(t.Halving+sweep.StackOverhead)),
	}
	n := len(p.Rounds)
	pairs := len(spec.WebMult) * len(spec.DBMult)
	for i, r := range p.Rounds[:n-1] {
		lines = append(lines, fmt.Sprintf("  round %d: every remaining cell once, warm-up %s + measure %s; keeps per "+
			"profile its best %s and every pair the round's measured noise cannot rule out (≤ %s)",
			i+1, r.Warmup, r.Duration, topText(r.Keep, pairs), sweep.Round(t.PerRound[i])))
	}
	f := finalFidelity(spec, p.Rounds[n-1], n)
	stop := "each until its intervals are apart from every other finalist's at its CPU limit"
	if f.Precision > 0 {
		stop += fmt.Sprintf(" or it is steady within ±%g %%", 100*f.Precision)
	}
	stop += fmt.Sprintf(", never before %s", f.MinDuration)
	lines = append(lines, fmt.Sprintf("  round %d (finals): the survivors × %d repetitions, warm-up ≤ %s + measure ≤ %s, %s (≤ %s)",
		n, max(spec.Repeat, 1), f.Warmup, f.Duration, stop, sweep.Round(t.PerRound[n-1])))
	return lines
}

// topText says how many of the grid's pairs a round keeps per profile
// before ties (topCount).
func topText(keep float64, pairs int) string {
	top := topCount(keep, pairs)
	if top == 1 {
		return fmt.Sprintf("multiplier pair of %d", pairs)
	}
	return fmt.Sprintf("%d of %d multiplier pairs", top, pairs)
}

// describeRounds is Describe for halving on interleaved rounds: its worst
// case is the interleaved grid's (no rung drops a target), which
// spec.Estimate prices, and each rung saves the dropped targets' later
// slices.
func describeRounds(spec sweep.Spec) []string {
	return []string{
		fmt.Sprintf("worst case, halving on interleaved rounds: %s, the interleaved grid's, if no rung drops a target; "+
			"never more", sweep.Round(spec.Estimate().Total)),
		fmt.Sprintf("  rungs after rounds %s: each stops the targets worse than every profile's pick at their CPU limit, "+
			"paired round by round at 95 %% (ties stay), saving their later slices of %s each; their slices so far count; "+
			"a rung that can drop none says so and the rounds go on", sweep.RungsText(spec.Rungs()), spec.SliceLength()),
	}
}
