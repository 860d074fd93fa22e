package sweep

// The baseline: the user's current settings, measured beside the grid so
// the report can say how much better its picks are than what runs today.

import (
	"fmt"
	"strconv"
	"strings"
)

// BaselineSuffix ends the id of a baseline cell:
// cpu_<cpus>__web_<W>__db_<P>__baseline. It keeps the cell apart from a
// grid cell with the same values, and the id stays the same on every run
// of the same spec, so rerun finds it.
const BaselineSuffix = "__baseline"

// Baseline holds absolute settings (not multipliers) that add one cell per
// CPU limit to the plan.
type Baseline struct {
	WebThreads int `json:"web_threads"`
	DBPool     int `json:"db_pool"`
}

// ParseBaseline reads "web=W,pool=P" (both integers ≥ 1, in any order).
// Its errors are bad input naming the baseline flag.
func ParseBaseline(text string) (*Baseline, error) {
	b := &Baseline{}
	seen := map[string]bool{}
	for _, part := range strings.Split(text, ",") {
		key, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, err := strconv.Atoi(strings.TrimSpace(val))
		switch {
		case !ok || (key != "web" && key != "pool"):
			return nil, BadInput("baseline", "%q is not web=N or pool=N; give e.g. web=8,pool=20", part)
		case seen[key]:
			return nil, BadInput("baseline", "%s is given twice in %q", key, text)
		case err != nil || n < 1:
			return nil, BadInput("baseline", "%s=%s is not a whole number ≥ 1", key, val)
		}
		seen[key] = true
		if key == "web" {
			b.WebThreads = n
		} else {
			b.DBPool = n
		}
	}
	if !seen["web"] || !seen["pool"] {
		return nil, BadInput("baseline", "%q needs both web=N and pool=N, e.g. web=8,pool=20", text)
	}
	return b, nil
}

// String is the form ParseBaseline reads.
func (b Baseline) String() string { return fmt.Sprintf("web=%d,pool=%d", b.WebThreads, b.DBPool) }

// Cell is the baseline cell at a CPU limit; it has no multipliers.
func (b Baseline) Cell(cpus float64) Cell {
	return Cell{ID: CellID(cpus, b.WebThreads, b.DBPool) + BaselineSuffix, CPUs: cpus,
		WebThreads: b.WebThreads, DBPool: b.DBPool, Baseline: true}
}

// withBaseline appends the baseline cell of each CPU limit after that
// limit's grid cells, so grid order stays CPU limit by CPU limit.
func withBaseline(cells []Cell, cpus []float64, b *Baseline) []Cell {
	if b == nil {
		return cells
	}
	out := make([]Cell, 0, len(cells)+len(cpus))
	seen := map[float64]bool{}
	for _, c := range cpus {
		if seen[c] {
			continue
		}
		seen[c] = true
		for _, cell := range cells {
			if cell.CPUs == c {
				out = append(out, cell)
			}
		}
		out = append(out, b.Cell(c))
	}
	return out
}
