package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Marks a matrix cell carries after its best/tie mark: its evidence says
// the load generator set its figures, or its Little's ratio is off.
const (
	markGenerator = "G"
	markLittles   = "L"
)

// consistency fills the cell's generator-bound evidence and Little's law
// flag from its ok repetitions (the first repetition that shows each).
func consistency(c *Cell, service string) {
	for _, r := range c.reps {
		if c.Generator == "" {
			c.Generator = results.GeneratorBound(r.Record, service)
		}
		if c.LittlesOff == "" {
			c.LittlesOff = r.LittlesOff()
		}
	}
}

// insightMarks are the generator and Little's marks of an eligible cell.
func insightMarks(c *Cell) string {
	var s string
	if c.Bottleneck == BottleneckGenerator {
		s += " " + markGenerator
	}
	if c.LittlesOff != "" {
		s += " " + markLittles
	}
	return s
}

// insightLegend explains the marks the report's cells carry; "" when no
// cell carries one, so a run without them reads as before.
func insightLegend(rep *Report) string {
	var generator, littles bool
	for _, cr := range rep.PerCPU {
		for _, c := range cr.Cells {
			generator = generator || c.Bottleneck == BottleneckGenerator
			littles = littles || c.LittlesOff != ""
		}
	}
	var parts []string
	if generator {
		parts = append(parts, markGenerator+" generator-bound: the load generator, not the target, probably set the figures "+
			"(see the bottleneck legend)")
	}
	if littles {
		parts = append(parts, fmt.Sprintf("%s Little's law off by more than %.0f %%: RPS × mean latency / VUs is not what "+
			"the driver's figures lead one to expect (requests lost from the count, a wrong time base, or a driver bug)",
			markLittles, 100*results.LittlesTolerance))
	}
	return strings.Join(parts, "; ")
}

// generatorNote names the cells of a recommended pair whose evidence says
// the load generator set their figures, so such a cell never wins
// silently; "" when none is.
func generatorNote(per []*CPUReport, pair [2]float64) string {
	var cells []string
	for _, cr := range per {
		if c := cr.grid[pair]; c != nil && c.Bottleneck == BottleneckGenerator {
			cells = append(cells, fmt.Sprintf("%s (%s)", c.ID, c.Generator))
		}
	}
	if len(cells) == 0 {
		return ""
	}
	return "generator-bound: " + strings.Join(cells, "; ") + "; the load generator, not the target, probably set " +
		"these figures, so the choice may not hold on a host where the generator has CPU to spare; run the generator " +
		"check, or load from another node"
}

// generatorCheckNote says what the run's generator check (run
// --check-first) found; "" when the run has none.
func generatorCheckNote(rep *Report) string {
	if rep.run == nil {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(rep.run.Dir, sweep.GeneratorCheckFile))
	if err != nil {
		return ""
	}
	var gc sweep.GeneratorCheck
	if err := json.Unmarshal(data, &gc); err != nil {
		return fmt.Sprintf("Generator check: %s could not be read: %v.", sweep.GeneratorCheckFile, err)
	}
	switch {
	case gc.Warning != "":
		return "Generator check: " + gc.Warning + "."
	case gc.Chosen.Status != results.StatusOK || gc.Reference.Status != results.StatusOK:
		return fmt.Sprintf("Generator check on %s: no comparison (%s %s, %s %s).", gc.Cell.ID,
			gc.Chosen.Driver, gc.Chosen.Status, gc.Reference.Driver, gc.Reference.Status)
	}
	return fmt.Sprintf("Generator check on %s: the %s driver reached %.0f rps, the %s driver %.0f rps at the same load "+
		"(gap %.1f %%, within noise): the generator did not limit the load.", gc.Cell.ID, gc.Chosen.Driver, gc.Chosen.RPS,
		gc.Reference.Driver, gc.Reference.RPS, gc.GapPct)
}

// addConsistency adds, where the repetition has them, the Little's law
// figures, the host's CPU pressure and the driver's CPU per request as
// results.csv columns.
func addConsistency(row map[string]string, r results.Rep) {
	if r.LittlesRatio != nil && r.LittlesExpected != nil {
		row["littles_ratio"], row["littles_expected"] = num(*r.LittlesRatio), num(*r.LittlesExpected)
	}
	if r.Host != nil && r.Host.CPUPressure != nil {
		row["host.cpu_pressure_some_share"] = num(r.Host.CPUPressure.SomeShare)
	}
	if r.Driver != nil && r.Driver.CPUPerRequestUS > 0 {
		row["driver.cpu_per_request_us"] = num(r.Driver.CPUPerRequestUS)
	}
}
