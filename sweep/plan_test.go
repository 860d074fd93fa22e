package sweep

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestPlanReproducesStudy checks that the default multipliers give exactly
// the 80 (cpu, web, pool) triples of the Game of Pools study.
func TestPlanReproducesStudy(t *testing.T) {
	// A copy of shared/reference/game-of-pools-summary.csv.
	f, err := os.Open("testdata/game-of-pools-summary.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, r := range rows[1:] {
		c, _ := strconv.ParseFloat(r[0], 64)
		w, _ := strconv.Atoi(r[1])
		p, _ := strconv.Atoi(r[2])
		want[CellID(c, w, p)] = true
	}
	if len(want) != 80 {
		t.Fatalf("study table has %d distinct cells, want 80", len(want))
	}
	cells := BuildPlan([]float64{2, 4, 6, 8}, DefaultWebMult, DefaultDBMult)
	if len(cells) != 80 {
		t.Errorf("plan has %d cells, want 80", len(cells))
	}
	for _, c := range cells {
		if !want[c.ID] {
			t.Errorf("plan cell %s is not in the study", c.ID)
		}
	}
}

func TestRoundHalfEven(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   float64
		want int
	}{{22.5, 22}, {23.5, 24}, {0.75, 1}, {0.4, 1}, {0, 1}, {2.5, 2}, {0.3 * 5, 2}, {4.5, 4}, {13.5, 14}} {
		t.Run(fmt.Sprint(tc.in), func(t *testing.T) {
			if got := RoundHalfEven(tc.in); got != tc.want {
				t.Errorf("RoundHalfEven(%v) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestPlanFractionalAndDedupe(t *testing.T) {
	t.Parallel()
	cells := BuildPlan([]float64{0.5, 1}, []float64{1, 2}, []float64{1.5, 2})
	var ids []string
	for _, c := range cells {
		ids = append(ids, fmt.Sprintf("%s%v", c.ID, c.Mults))
	}
	want := []string{
		"cpu_0.5__web_1__db_2[[1 1.5] [1 2] [2 1.5] [2 2]]",
		"cpu_1__web_1__db_2[[1 1.5] [1 2]]",
		"cpu_1__web_2__db_3[[2 1.5]]",
		"cpu_1__web_2__db_4[[2 2]]",
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("cells:\n got %v\nwant %v", ids, want)
	}
}

func TestCellID(t *testing.T) {
	t.Parallel()
	if got := CellID(6, 12, 30); got != "cpu_6__web_12__db_30" {
		t.Errorf("got %s", got)
	}
	if got := CellID(0.5, 1, 2); got != "cpu_0.5__web_1__db_2" {
		t.Errorf("got %s", got)
	}
}
