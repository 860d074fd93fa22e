package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// WriteJSON writes the result as one indented JSON document.
func WriteJSON(w io.Writer, res *Result) error { return writeJSON(w, res) }

// writeJSON writes v as one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes the result for a person: the plan, each round's cells
// (of the first replay), the time against the grid's, and the picks.
func WriteText(w io.Writer, res *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Replay of run %s through %s (%d rounds).\n\n", res.RunID, res.Strategy, len(res.Plan))
	for i, r := range res.Rounds {
		p := res.Plan[i]
		phase := fmt.Sprintf("%g s", p.DurationS)
		if p.MinimumS > 0 {
			phase = fmt.Sprintf("until apart from its rivals or steady, %g–%g s", p.MinimumS, p.DurationS)
		}
		fmt.Fprintf(&b, "Round %d: %d cells × (%g s warm-up + %s) = %.0f s.\n", r.Round, r.Measured, p.WarmupS, phase, r.TimeS)
		if i < len(res.Rounds)-1 {
			fmt.Fprintf(&b, "  keeps %d (each profile's best %g %% of pairs, at least one, and every pair within the round's %.1f %% band): %s\n",
				len(r.Kept), 100*p.Keep, 100*r.Band, strings.Join(r.Kept, " "))
			continue
		}
		fmt.Fprintf(&b, "  measured: %s\n  (their lengths: %d from samples.csv, %d assumed)\n",
			strings.Join(r.Kept, " "), res.SteadyFromSamples, res.SteadyAssumed)
	}
	fmt.Fprintf(&b, "\nHalving: %.0f s of the grid's %.0f s, %.1f %% of its wall time", res.HalvingS, res.GridS, 100*res.Fraction)
	if res.Replays > 1 {
		fmt.Fprintf(&b, " on average over %d replays (at most %.1f %%)", res.Replays, 100*res.FractionMax)
	}
	b.WriteString(".\n")
	writeNoise(&b, res)
	b.WriteString("\n")
	writePicks(&b, res)
	for _, n := range res.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNoise(b *strings.Builder, res *Result) {
	if res.Replays <= 1 {
		b.WriteString("Screening rounds saw the grid's own figures (no noise; give seeds for noisy replays).\n")
		return
	}
	for i, n := range res.Noise {
		final := i == len(res.Noise)-1
		what := fmt.Sprintf("Round %d noise at %g s", n.Round, n.LengthS)
		if final {
			what = fmt.Sprintf("Round %d (finals) noise at %g s", n.Round, n.LengthS)
		}
		fmt.Fprintf(b, "%s: RPS %.1f %%, p99 %.1f %% (%s).\n", what, 100*n.RPS, 100*n.P99, n.Source)
		if final && (n.RPS > 0 || n.P99 > 0) {
			b.WriteString("  each finalist is perturbed at the noise of its own final's length.\n")
		}
	}
}

func writePicks(b *strings.Builder, res *Result) {
	if res.Replays > 1 {
		b.WriteString("Picks of the first replay; agreement over all of them.\n")
	}
	fmt.Fprintf(b, "%-12s %-22s %-20s %-20s %s\n", "profile", "slice", "grid's pick", "halving's pick", "agreement")
	for _, p := range res.Picks {
		slice := p.Slice
		if slice == "" {
			slice = "-"
		}
		fmt.Fprintf(b, "%-12s %-22s %-20s %-20s %.0f %%\n", p.Profile, slice, pairText(p.Grid), pairText(p.Halving),
			100*res.Agreement[p.Profile])
	}
}

func pairText(p [2]float64) string {
	if p == [2]float64{} {
		return "none"
	}
	return fmt.Sprintf("web %s× pool %s×", sweep.FormatNumber(p[0]), sweep.FormatNumber(p[1]))
}
