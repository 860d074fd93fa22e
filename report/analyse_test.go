package report

import (
	"reflect"
	"testing"
)

// fig is a cell with one repetition's RPS and P99 (their intervals are
// the assumed noise band of 5 %).
func fig(id string, rps, p99 float64) *Cell {
	c := &Cell{RPS: estimate([]float64{rps}, 0.05), P99: estimate([]float64{p99}, 0.05)}
	c.ID = id
	return c
}

// TestPicksTakeTheFirstOnEqualFigures: of cells with the same figure the
// first in plan order wins, and the others it overlaps are its ties.
func TestPicksTakeTheFirstOnEqualFigures(t *testing.T) {
	t.Parallel()
	cells := []*Cell{fig("a", 900, 10), fig("b", 1000, 12), fig("c", 1000, 12), fig("d", 500, 10)}
	for i, c := range cells {
		c.WebMult, c.DBMult = float64(i+1), 1
	}
	cr := analyseCPU(1, cells, nil)
	// 900 ± 22.5 and 1000 ± 25 do not overlap; 10 ± 0.25 and 12 ± 0.3 neither.
	if got := cr.BestRPS; got.Cell.ID != "b" || !reflect.DeepEqual(ids(got.Ties), []string{"c"}) {
		t.Errorf("best RPS %s with ties %v, want b with ties [c]", got.Cell.ID, ids(got.Ties))
	}
	if got := cr.BestP99; got.Cell.ID != "a" || !reflect.DeepEqual(ids(got.Ties), []string{"d"}) {
		t.Errorf("best P99 %s with ties %v, want a with ties [d]", got.Cell.ID, ids(got.Ties))
	}
	// Scores over RPS 500..1000 and P99 10..12: a 0.8, b and c 0, d 0.
	if got := cr.Balanced; got.Cell.ID != "a" || len(got.Ties) != 0 {
		t.Errorf("balanced %s with ties %v, want a alone", got.Cell.ID, ids(got.Ties))
	}
}

// TestFrontier: the Pareto frontier by P99 ascending keeps a cell only
// when it has more RPS than every cell with a lower P99; equal RPS at a
// higher P99 is dominated.
func TestFrontier(t *testing.T) {
	t.Parallel()
	cells := []*Cell{fig("slow", 1200, 30), fig("fast", 800, 5), fig("same-rps-slower", 800, 8),
		fig("mid", 1000, 12), fig("worse", 900, 20)}
	if got, want := ids(frontier(cells)), []string{"fast", "mid", "slow"}; !reflect.DeepEqual(got, want) {
		t.Errorf("frontier %v, want %v", got, want)
	}
}

func TestBalancedScore(t *testing.T) {
	t.Parallel()
	r := Ranges{RPSLo: 800, RPSHi: 1200, P99Lo: 5, P99Hi: 25}
	for _, tc := range []struct {
		name     string
		r        Ranges
		rps, p99 float64
		want     float64
	}{
		{"best of both", r, 1200, 5, 1},
		{"worst of both", r, 800, 25, -1},
		{"middle", r, 1100, 10, 0.75 - 0.25},
		{"no RPS span", Ranges{RPSLo: 1000, RPSHi: 1000, P99Lo: 5, P99Hi: 25}, 1000, 15, -0.5},
		{"no spans", Ranges{RPSLo: 1000, RPSHi: 1000, P99Lo: 5, P99Hi: 5}, 1000, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.r.Balanced(tc.rps, tc.p99); got != tc.want {
				t.Errorf("Balanced(%v, %v) = %v, want %v", tc.rps, tc.p99, got, tc.want)
			}
		})
	}
}
