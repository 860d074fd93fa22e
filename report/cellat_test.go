package report

import (
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

// TestProfileCellAt pins a profile's cell at any CPU limit to the grid's
// rule: half to even on web threads and on the pool, never below 1.
func TestProfileCellAt(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		web, db    float64
		cpus       float64
		wantWeb    int
		wantPool   int
		wantCellID string
	}{
		{"9 x 2.5 = 22.5 -> 22", 2.5, 2, 9, 22, 44, "cpu_9__web_22__db_44"},
		{"15 x 1.5 = 22.5 -> 22", 1.5, 1.5, 15, 22, 33, "cpu_15__web_22__db_33"},
		{"9 x 1.5 = 13.5 -> 14", 1.5, 1.5, 9, 14, 21, "cpu_9__web_14__db_21"},
		{"pool 7 x 1.5 = 10.5 -> 10", 1.5, 1.5, 4.6, 7, 10, "cpu_4.6__web_7__db_10"},
		{"never below 1", 1, 1.5, 0.25, 1, 2, "cpu_0.25__web_1__db_2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Profile{Key: "throughput", Found: true, WebMult: c.web, DBMult: c.db}.CellAt(c.cpus)
			grid := sweep.BuildPlan([]float64{c.cpus}, []float64{c.web}, []float64{c.db})[0]
			if got.WebThreads != c.wantWeb || got.DBPool != c.wantPool || got.Cell != c.wantCellID {
				t.Errorf("CellAt(%g) = %+v, want web %d, pool %d, %s", c.cpus, got, c.wantWeb, c.wantPool, c.wantCellID)
			}
			if got.Cell != grid.ID || got.Profile != "throughput" {
				t.Errorf("CellAt(%g) = %+v, the grid's cell is %s", c.cpus, got, grid.ID)
			}
		})
	}
}
