package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestChartSize: every chart is 16 × 11 cm (453.54 × 311.81 pt).
func TestChartSize(t *testing.T) {
	t.Parallel()
	charts, err := Charts(buildFixture(t, "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		if !strings.Contains(string(c.SVG), `<svg width="453.54pt" height="311.81pt"`) {
			t.Errorf("%s is not 16 × 11 cm: %.200q", c.File, c.SVG)
		}
	}
}

// TestChartsGolden pins what each chart draws for the mixed run: the
// heatmaps' cells and labels, the scaling chart's points, ideal line and
// fit, and the Pareto scatter with its frontiers (go test -update
// rewrites the files; look at them before committing).
func TestChartsGolden(t *testing.T) {
	t.Parallel()
	charts, err := Charts(buildFixture(t, "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		testenv.Golden(t, filepath.Join("testdata", "golden", "charts", "mixed-"+c.File), c.SVG)
	}
}
