package replay

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestPhaseTimesAreTheSameEveryCall: a repetition's wall time is the sum
// of its phases in one order, so a replay prints the same digits every
// time (summed in a map's order, 0.1 + 0.2 + 0.3 gave ...0001 or not).
func TestPhaseTimesAreTheSameEveryCall(t *testing.T) {
	t.Parallel()
	r := results.Record{PhasesS: map[string]float64{"apply": 0.1, "ready": 0.2, "warmup": 0.3, "measure": 1e-9,
		"reset": 3.3, "probe": 7.7, "write": 1.1, "watch": 2.2}}
	first, w, m := phaseTimes(r)
	if w != 0.3 || m != 1e-9 {
		t.Fatalf("warm-up %v, measure %v; want 0.3 and 1e-9", w, m)
	}
	for range 200 {
		if got, _, _ := phaseTimes(r); got != first {
			t.Fatalf("wall time %.17g, then %.17g: the sum depends on the order of the phases", first, got)
		}
	}
}
