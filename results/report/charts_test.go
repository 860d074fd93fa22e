package report

import (
	"strings"
	"testing"
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
