package sweep

import (
	"strings"
	"testing"
	"time"
)

// TestWritePlan pins sweep plan's table (cells numbered from 1, each with
// its multiplier pairs) and its estimate line, with and without a limit
// search's levels.
func TestWritePlan(t *testing.T) {
	t.Parallel()
	s := testSpec()
	var b strings.Builder
	if err := WritePlan(&b, s); err != nil {
		t.Fatal(err)
	}
	table := `┌───┬────────────────────┬──────┬─────────────┬─────────┬────────────────────────┐
│ # │        cell        │ cpus │ web threads │ db pool │ multipliers (web × db) │
├───┼────────────────────┼──────┼─────────────┼─────────┼────────────────────────┤
│ 1 │ cpu_1__web_1__db_2 │ 1    │ 1           │ 2       │ 1×2                    │
│ 2 │ cpu_1__web_2__db_4 │ 1    │ 2           │ 4       │ 2×2                    │
│ 3 │ cpu_2__web_2__db_4 │ 2    │ 2           │ 4       │ 1×2                    │
│ 4 │ cpu_2__web_4__db_8 │ 2    │ 4           │ 8       │ 2×2                    │
└───┴────────────────────┴──────┴─────────────┴─────────┴────────────────────────┘
`
	if want := table + "4 cells × 1 repetitions × (warm-up 1s + measure 1s + ~8s per cell) + ~30s to start and stop the stack ≈ 1m10s\n"; b.String() != want {
		t.Errorf("plan:\n%s\nwant:\n%s", b.String(), want)
	}
	s.FindLimit = &FindLimit{MaxSteps: 6}
	b.Reset()
	if err := WritePlan(&b, s); err != nil {
		t.Fatal(err)
	}
	// 4 × (6 × 2 s + 8 s) + 30 s.
	if want := table + "4 cells × 1 repetitions × (up to 6 search levels × (warm-up 1s + measure 1s) + ~8s per cell) + ~30s to start and stop the stack ≈ 1m50s\n"; b.String() != want {
		t.Errorf("plan with a search:\n%s\nwant:\n%s", b.String(), want)
	}
	s = testSpec()
	s.Schedule, s.Slice, s.RoundsAuto, s.Seed = ScheduleInterleaved, Duration(250*time.Millisecond), true, 3
	b.Reset()
	if err := WritePlan(&b, s); err != nil {
		t.Fatal(err)
	}
	// 4 × (8 s + 1 s + 4 × 0.25 s) + 30 s: the sequential run's time.
	if want := table + "4 targets × (~8s to start + warm-up 1s + up to 4 rounds × a 250ms slice) + ~30s to start and stop the stack ≈ 1m10s\n" +
		"interleaved: the targets of each CPU limit run at once; each round gives every one a slice of load in a fresh random order (seed 3) while the others idle; the rounds are the noise, no control cell runs\n" +
		"rounds auto: a CPU limit's rounds stop once its picks' intervals are apart, at the latest when each cell had 1s of load (--duration): the figure above is the longest\n"; b.String() != want {
		t.Errorf("interleaved plan:\n%s\nwant:\n%s", b.String(), want)
	}
}
