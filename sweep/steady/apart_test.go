package steady

import (
	"strings"
	"testing"
	"time"
)

// TestApartFromRivals: with the precision rule off, a phase stops early
// (never before its minimum) only once its intervals of RPS and p99 are
// apart from every rival's; one rival within reach of either figure keeps
// it going to its longest, and says which.
func TestApartFromRivals(t *testing.T) {
	t.Parallel()
	series := gen(120, noisy(1, 1000, 0.05), noisy(2, 20, 0.05))
	far := Rival{ID: "far", RPS: Around(1300, 0.05), P99: Around(40, 0.05)}
	for _, tc := range []struct {
		name   string
		rivals []Rival
		stopAt float64
		says   string
	}{
		{"apart from both", []Rival{far, {ID: "slow", RPS: Around(700, 0.05)}}, 40, "apart from its 2 rivals"},
		{"RPS within reach", []Rival{far, {ID: "near", RPS: Around(1010, 0.05), P99: Around(40, 0.05)}}, 120, "overlaps near's"},
		{"p99 within reach", []Rival{far, {ID: "tail", RPS: Around(1300, 0.05), P99: Around(20.5, 0.05)}}, 120, "p99"},
		{"no rivals", nil, 120, ruleOff},
	} {
		c := Config{MinDuration: 40 * time.Second, MaxDuration: 120 * time.Second, Rivals: tc.rivals}
		d := Scan(series, c)
		if d.ElapsedS != tc.stopAt || d.StoppedEarly != (tc.stopAt < 120) || d.Apart != d.StoppedEarly ||
			!strings.Contains(d.Reason, tc.says) {
			t.Errorf("%s: %+v; want a stop at %g s saying %q", tc.name, d, tc.stopAt, tc.says)
		}
	}
	if _, _, ok := Intervals(series[:24]); ok {
		t.Error("24 s gave an interval: fewer than five 5 s batches")
	}
}
