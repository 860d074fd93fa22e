package report

import (
	"reflect"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestIneligible pins why a cell cannot win, as the report prints it.
func TestIneligible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		reps []results.Rep
		want string
	}{
		{"not measured", nil, "not measured"},
		{"failed", []results.Rep{failedRep("target not ready after 120s")}, "failed: target not ready after 120s"},
		{"errors above the bound", []results.Rep{okRep(100, 5, 0.02), okRep(100, 5, 0.03)},
			"error rate 2.50 % above the 1.00 % bound"},
		{"eligible", []results.Rep{okRep(100, 5, 0.01)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := results.RunCell{CellInfo: results.CellInfo{ID: "c", CPUs: 1, WebThreads: 1, DBPool: 2}, Reps: tc.reps}
			if got := summarise(rc, "app", sweep.PoolShape{}, DefaultOptions()).Ineligible; got != tc.want {
				t.Errorf("ineligible %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDescribeLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		load results.LoadInfo
		want string
	}{
		{results.LoadInfo{Model: "closed", VUs: 8}, "closed vus=8"},
		{results.LoadInfo{Model: "open", Rate: 250, VUs: 25}, "open rate=250 vus=25"},
		{results.LoadInfo{Model: "open", Rate: 0.5}, "open rate=0.5"},
		{results.LoadInfo{Model: "closed"}, "closed"},
		{results.LoadInfo{Model: "closed", VUs: 8, Scenario: &results.FileRef{Name: "orders.yaml", SHA256: "0123456789abcdef"}},
			"closed vus=8, scenario orders.yaml (sha256 0123456789ab)"},
		{results.LoadInfo{Model: "open", Rate: 5, Script: &results.FileRef{Name: "load.js", SHA256: "fedcba9876543210"}},
			"open rate=5, k6 script load.js (sha256 fedcba987654)"},
	} {
		if got := describeLoad(tc.load); got != tc.want {
			t.Errorf("describeLoad(%+v) = %q, want %q", tc.load, got, tc.want)
		}
	}
}

// TestPairs: a cell without the list of multiplier pairs (an older
// record) is placed by its own pair.
func TestPairs(t *testing.T) {
	t.Parallel()
	c := &Cell{CellInfo: results.CellInfo{WebMult: 2, DBMult: 1.5}}
	if got := c.pairs(); !reflect.DeepEqual(got, [][2]float64{{2, 1.5}}) {
		t.Errorf("pairs without Mults = %v, want [[2 1.5]]", got)
	}
	c.Mults = [][2]float64{{1, 3}, {2, 1.5}}
	if got := c.pairs(); !reflect.DeepEqual(got, c.Mults) {
		t.Errorf("pairs = %v, want %v", got, c.Mults)
	}
}
