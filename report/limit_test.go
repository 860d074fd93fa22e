package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

var limitsSpec = map[string]any{
	"cpus": []float64{1, 2}, "web_mult": []float64{1, 2, 3}, "db_mult": []float64{2},
	"service": "app", "web_env": "WEB_THREADS", "pool_env": "DB_POOL",
}

// limited gives a repetition the safe limit a --find-limit search found.
func limited(level, failsAt int, bottleneck string) func(*results.Rep) {
	return func(r *results.Rep) {
		r.Load.VUs = max(level, 1)
		r.SafeLimit = &results.SafeLimit{Model: "vus", Level: level, FailsAt: failsAt, Bottleneck: bottleneck,
			SLO: "success>=99%,p99<=20ms", Steps: 6}
	}
}

// limitsCells is a --find-limit run: bracketed limits that tie and that
// do not, a repeated cell, one where no level failed, one where the first
// level failed already, and a failed cell.
func limitsCells() []fxCell {
	grid := fxGrid([]float64{1, 2}, []float64{1, 2, 3}, []float64{2})
	reps := map[string][]results.Rep{
		"cpu_1__web_1__db_2":  {okRep(400, 18, 0, limited(16, 24, "target-cpu"))},
		"cpu_1__web_2__db_4":  {okRep(430, 19, 0, limited(20, 22, "pool"))},
		"cpu_1__web_3__db_6":  {failedRep("target not ready after 120s")},
		"cpu_2__web_2__db_4":  {okRep(800, 17, 0, limited(32, 40, "target-cpu")), okRep(820, 18, 0, limited(36, 40, "target-cpu"))},
		"cpu_2__web_4__db_8":  {okRep(300, 45, 0.2, limited(0, 8, "errors"))},
		"cpu_2__web_6__db_12": {okRep(1300, 16, 0, limited(64, 0, ""))},
	}
	cells := make([]fxCell, 0, len(grid))
	for _, info := range grid {
		cells = append(cells, fxCell{info: info, reps: reps[info.ID]})
	}
	return cells
}

func TestSafeLimits(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "limits")
	cells := cellsByID(rep)
	for _, tc := range []struct {
		id, text string
		eligible bool
	}{
		{"cpu_1__web_1__db_2", "16", true},
		{"cpu_1__web_2__db_4", "20", true},
		{"cpu_2__web_2__db_4", "34 ±25", true},
		{"cpu_2__web_4__db_8", "<8", false},
		{"cpu_2__web_6__db_12", "≥64", true},
	} {
		t.Run(tc.id, func(t *testing.T) {
			c := cells[tc.id]
			if c.SafeLimit == nil || limitText(c.SafeLimit) != tc.text || c.eligible() != tc.eligible {
				t.Errorf("safe limit %+v (%q), eligible %v; want %q, %v", c.SafeLimit, limitText(c.SafeLimit), c.eligible(), tc.text, tc.eligible)
			}
		})
	}
	if c := cells["cpu_1__web_3__db_6"]; c.SafeLimit != nil {
		t.Errorf("failed cell has a safe limit %+v", c.SafeLimit)
	}
	cpu1, cpu2 := rep.PerCPU[0], rep.PerCPU[1]
	if cpu1.BestLimit.Cell.ID != "cpu_1__web_2__db_4" || !slices.Equal(ids(cpu1.BestLimit.Ties), []string{"cpu_1__web_1__db_2"}) {
		t.Errorf("CPU 1 best limit %s ties %v; want web 2 tied with web 1 ([16,24) overlaps [20,22))",
			cpu1.BestLimit.Cell.ID, ids(cpu1.BestLimit.Ties))
	}
	if cpu2.BestLimit.Cell.ID != "cpu_2__web_6__db_12" || len(cpu2.BestLimit.Ties) != 0 {
		t.Errorf("CPU 2 best limit %s ties %v; want web 6 alone", cpu2.BestLimit.Cell.ID, ids(cpu2.BestLimit.Ties))
	}
	if !rep.HasMetric(MetricLimit) || buildFixture(t, "mixed").HasMetric(MetricLimit) {
		t.Error("only the --find-limit run should have the limit metric")
	}
}

// TestSafeLimitFiles checks the limit matrices in report.html and the
// safe_limit columns of results.csv.
func TestSafeLimitFiles(t *testing.T) {
	t.Parallel()
	dir := writeFixtureFiles(t, "limits")
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	for _, want := range []string{"CPU 1: safe limit (vus)", "CPU 2: safe limit (vus)", "≥64 [12] *", "best safe limit (vus 20)"} {
		if !strings.Contains(html, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "results.csv"))
	col := slices.Index(rows[0], "safe_limit.level")
	if col < 0 || !slices.Contains(rows[0], "safe_limit.bottleneck") {
		t.Fatalf("results.csv lacks the safe_limit columns: %v", rows[0])
	}
	var levels []string
	for _, r := range rows[1:] {
		levels = append(levels, r[col])
	}
	if want := []string{"16", "20", "", "32", "36", "0", "64"}; !slices.Equal(levels, want) {
		t.Errorf("safe_limit.level column %v, want %v", levels, want)
	}
}

// cellsByID indexes a report's cells.
func cellsByID(rep *Report) map[string]*Cell {
	cells := map[string]*Cell{}
	for _, c := range rep.Cells {
		cells[c.ID] = c
	}
	return cells
}

// TestSameLimit: two cells' safe-limit brackets [Low, FailsAt) can't be
// told apart when they overlap; a bracket with no failing level is open
// upwards, and brackets that only touch are apart.
func TestSameLimit(t *testing.T) {
	t.Parallel()
	cell := func(low, failsAt int) *Cell { return &Cell{SafeLimit: &LimitSummary{Low: low, FailsAt: failsAt}} }
	for _, c := range []struct {
		a, b *Cell
		want bool
	}{
		{cell(10, 20), cell(15, 30), true},
		{cell(10, 20), cell(20, 30), false},
		{cell(20, 30), cell(10, 20), false},
		{cell(10, 0), cell(20, 30), true},
		{cell(40, 0), cell(20, 30), false},
		{cell(10, 0), cell(50, 0), true},
	} {
		if got := sameLimit(c.a, c.b); got != c.want {
			t.Errorf("sameLimit([%d,%d), [%d,%d)) = %v, want %v", c.a.SafeLimit.Low, c.a.SafeLimit.FailsAt,
				c.b.SafeLimit.Low, c.b.SafeLimit.FailsAt, got, c.want)
		}
	}
}
