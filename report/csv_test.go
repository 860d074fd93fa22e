package report

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// TestCSVGolden pins results.csv of the mixed run: every value as written
// (shortest decimal form), one row per finished repetition.
func TestCSVGolden(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, buildFixture(t, "mixed")); err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "golden", "mixed-results.csv"), buf.Bytes())
}

// TestCSVAxes: the extra axes a cell has become columns; those it lacks
// stay out.
func TestCSVAxes(t *testing.T) {
	t.Parallel()
	row := map[string]string{}
	addAxes(row, results.CellInfo{Variant: "go", Memory: "256m", Axes: map[string]string{"GOGC": "50", "db:MODE": "tx"}})
	want := map[string]string{"variant": "go", "memory": "256m", "axis.GOGC": "50", "axis.db:MODE": "tx"}
	if !reflect.DeepEqual(row, want) {
		t.Errorf("columns %v, want %v", row, want)
	}
}

// TestCSVWait: the CPU a container waited for is a column where it was
// read, and no column (not a 0) where it was not.
func TestCSVWait(t *testing.T) {
	t.Parallel()
	wait := 0.25
	row := map[string]string{}
	addUsage(row, results.Rep{Record: results.Record{Resources: map[string]results.ResourceStats{
		"app": {CPUWaitCoresMean: &wait}, "db": {}}}})
	if got := row["resources.app.cpu_wait_cores_mean"]; got != "0.25" {
		t.Errorf("app's wait column %q, want 0.25", got)
	}
	if got, ok := row["resources.db.cpu_wait_cores_mean"]; ok {
		t.Errorf("db's wait not read, yet a column %q", got)
	}
}
