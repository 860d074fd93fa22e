package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCellBreakdown checks how repetitions' breakdowns become a cell's:
// means, extremes, and none unless every ok repetition has one.
func TestCellBreakdown(t *testing.T) {
	t.Parallel()
	cells := map[string]*Cell{}
	for _, c := range buildFixture(t, "mixed").Cells {
		cells[c.ID] = c
	}
	tests := []struct {
		id         string
		present    bool
		waitingP99 float64 // mean over repetitions
		waitingMax float64 // the largest
		conns      int64   // rounded mean
	}{
		{"cpu_1__web_1__db_2", true, 0.9 * 5.1, 2 * 0.9 * 5.2, 8},
		{"cpu_2__web_2__db_4", true, 0.9 * 6.2, 2 * 0.9 * 6.4, 16},
		{"cpu_2__web_4__db_12", true, 0.9 * 20.5, 2 * 0.9 * 20.5, 0}, // its failed repetition does not count
		{"cpu_2__web_4__db_6", false, 0, 0, 0},                       // one of three repetitions lacks it
		{"cpu_1__web_2__db_3", false, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			b := cells[tt.id].Breakdown
			if (b != nil) != tt.present {
				t.Fatalf("breakdown %+v, want present %v", b, tt.present)
			}
			if b == nil {
				return
			}
			if !near(b.Waiting.P99, tt.waitingP99) || !near(b.Waiting.Max, tt.waitingMax) || b.NewConnections != tt.conns {
				t.Errorf("waiting p99 %g max %g, %d new connections; want %g, %g, %d",
					b.Waiting.P99, b.Waiting.Max, b.NewConnections, tt.waitingP99, tt.waitingMax, tt.conns)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 0.001 && b-a < 0.001 }

// TestBreakdownInReport checks report.md shows the breakdown tables only
// when some cell has a breakdown, and that results.csv and results.json
// carry it.
func TestBreakdownInReport(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]int{"gop": 0, "mixed": 2} {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, buildFixture(t, name), nil, ChartDir); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(b.String(), ": latency breakdown (ms)"); got != want {
			t.Errorf("%s report.md has %d breakdown tables, want %d", name, got, want)
		}
	}
	dir := writeFixtureFiles(t, "mixed")
	rows := readCSV(t, filepath.Join(dir, "results.csv"))
	col := slices.Index(rows[0], "breakdown.waiting.p99_ms")
	conns := slices.Index(rows[0], "breakdown.new_connections")
	if col < 0 || conns < 0 {
		t.Fatalf("results.csv lacks the breakdown columns: %v", rows[0])
	}
	filled := 0
	for _, r := range rows[1:] {
		if r[col] != "" {
			filled++
		}
	}
	if filled != 3+3+2+1 { // the repetitions the fixture gives a breakdown
		t.Errorf("%d rows have breakdown.waiting.p99_ms, want 9", filled)
	}
	var doc struct {
		Cells []struct {
			ID        string          `json:"id"`
			Breakdown json.RawMessage `json:"breakdown_ms"`
		} `json:"cells"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil || json.Unmarshal(raw, &doc) != nil {
		t.Fatalf("results.json: %v", err)
	}
	var with []string
	for _, c := range doc.Cells {
		if c.Breakdown != nil {
			with = append(with, c.ID)
		}
	}
	if want := []string{"cpu_1__web_1__db_2", "cpu_2__web_2__db_4", "cpu_2__web_4__db_12"}; !slices.Equal(with, want) {
		t.Errorf("results.json cells with breakdown_ms = %v, want %v", with, want)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
