package sweep

import (
	"testing"
	"time"
)

// TestEstimate: one short cell is its load plus the per-cell and the
// once-per-run overhead, never rounded away; a search multiplies the
// loads by its levels.
func TestEstimate(t *testing.T) {
	t.Parallel()
	s := Spec{CPUs: []float64{1}, WebMult: []float64{1}, DBMult: []float64{2}, Repeat: 1,
		Warmup: Duration(time.Second), Duration: Duration(3 * time.Second)}
	if e := s.Estimate(); e.Jobs != 1 || e.Total != 4*time.Second+CellOverhead+StackOverhead || Round(e.Total) != "42s" {
		t.Errorf("one 1s+3s cell: %+v (%s), want 42s", e, Round(e.Total))
	}
	s.CPUs, s.Repeat = []float64{1, 2}, 3
	s.FindLimit = &FindLimit{MaxSteps: 6}
	if e := s.Estimate(); e.Jobs != 6 || e.Levels != 6 || e.PerJob != 6*4*time.Second+CellOverhead {
		t.Errorf("two cells × 3 repetitions searching up to 6 levels: %+v", e)
	}
	lanes := Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Repeat: 1, Parallel: 2,
		Warmup: Duration(time.Second), Duration: Duration(3 * time.Second)}
	if e := lanes.Estimate(); e.Jobs != 4 || e.Total != 2*e.PerJob+(time.Second+3*time.Second+CellOverhead)+StackOverhead {
		t.Errorf("4 cells on 2 lanes: %+v, want 2 cells each and a control of the whole 3 s (shorter than 5 s)", e)
	}
	lanes.Duration, lanes.CPUs = Duration(time.Minute), []float64{1, 2, 3}
	if e := lanes.Estimate(); e.Jobs != 6 || e.Total != 3*e.PerJob+(time.Second+15*time.Second+CellOverhead)+StackOverhead {
		t.Errorf("6 one-minute cells on 2 lanes: %+v, want 3 cells each and a 15 s control", e)
	}
	for d, want := range map[time.Duration]string{42 * time.Second: "42s", 90*time.Minute + 20*time.Second: "1h30m",
		12*time.Minute + 499*time.Millisecond: "12m0s", time.Hour: "1h0m", time.Hour - 400*time.Millisecond: "1h0m", time.Hour - 600*time.Millisecond: "59m59s"} {
		if got := Round(d); got != want {
			t.Errorf("Round(%s) = %s, want %s", d, got, want)
		}
	}
}
