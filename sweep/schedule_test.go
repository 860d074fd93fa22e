package sweep

import (
	"fmt"
	"testing"
)

func jobIDs(jobs []Job) string {
	s := ""
	for _, j := range jobs {
		s += fmt.Sprintf("%s/%d ", FormatNumber(j.Cell.CPUs)+fmt.Sprint(j.Cell.WebThreads), j.Rep)
	}
	return s
}

func TestSchedule(t *testing.T) {
	t.Parallel()
	cells := BuildPlan([]float64{1, 2}, []float64{1, 2}, []float64{2})
	for _, tc := range []struct {
		name, order string
		want        string
	}{
		{"grid", OrderGrid, "11/1 11/2 12/1 12/2 22/1 22/2 24/1 24/2 "},
		{"interleave", OrderInterleave, "11/1 22/1 12/1 24/1 11/2 22/2 12/2 24/2 "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := jobIDs(Schedule(cells, 2, tc.order, 1)); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
	t.Run("shuffle is a seeded permutation", func(t *testing.T) {
		a, b := Schedule(cells, 2, OrderShuffle, 7), Schedule(cells, 2, OrderShuffle, 7)
		if jobIDs(a) != jobIDs(b) {
			t.Error("same seed gave different orders")
		}
		if len(a) != 8 || jobIDs(a) == jobIDs(Schedule(cells, 2, OrderGrid, 0)) {
			t.Errorf("shuffle did not permute: %s", jobIDs(a))
		}
		seen := map[string]bool{}
		for _, j := range a {
			seen[fmt.Sprint(j.Cell.ID, j.Rep)] = true
		}
		if len(seen) != 8 {
			t.Errorf("shuffle lost or duplicated jobs: %v", seen)
		}
	})
}

// TestInterleaveUnequalLimits: when CPU limits have different numbers of
// cells, the round robin goes on with the limits that still have cells.
func TestInterleaveUnequalLimits(t *testing.T) {
	t.Parallel()
	// cpu 0.5 gives one cell (both web multipliers round to 1 thread);
	// cpu 2 gives two.
	cells := BuildPlan([]float64{0.5, 2}, []float64{1, 2}, []float64{2})
	if got, want := jobIDs(Schedule(cells, 1, OrderInterleave, 0)), "0.51/1 22/1 24/1 "; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
