// Package sweep owns the experiment: the spec a user asks for, the plan of
// cells derived from it (axes, derived values, cell ids, order) and the
// runner that takes each cell through its lifecycle. It talks to the world
// only through the small interfaces in ports.go (Stack, Driver), so the
// whole lifecycle is testable without Docker, k6 or PostgreSQL.
package sweep

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sweep-tool/sweep/results"
)

// RuleHelp states how cells are derived; it is shown in --help.
const RuleHelp = `web threads = round(cpus × web-mult), db pool = round(web threads × db-mult),
rounding half to even (as Python's round: 9 × 2.5 = 22.5 → 22), never below 1.
Cell id: cpu_<cpus>__web_<web threads>__db_<db pool>, e.g. cpu_6__web_12__db_30.
Multiplier pairs that give the same cell run once; the cell lists every pair.`

// Cell is one configuration of the grid.
type Cell struct {
	ID         string
	CPUs       float64
	WebThreads int
	DBPool     int
	// Mults lists every [web_mult, db_mult] pair that gives this cell, in
	// grid order; the first is the cell's own.
	Mults [][2]float64
	// Extras are the cell's values of the extra axes (memory, env axes,
	// load level, variant); zero without them.
	Extras Extras
	// Baseline marks the cell of the user's current settings (see
	// Baseline); it has no multipliers.
	Baseline bool
}

// Info is the cell as the record and sweep.json describe it.
func (c Cell) Info() results.CellInfo {
	info := results.CellInfo{ID: c.ID, CPUs: c.CPUs, WebThreads: c.WebThreads, DBPool: c.DBPool,
		Mults: c.Mults, Baseline: c.Baseline,
		Variant: c.Extras.Variant, Memory: c.Extras.Memory, Axes: c.Extras.Env}
	if len(c.Mults) > 0 {
		info.WebMult, info.DBMult = c.Mults[0][0], c.Mults[0][1]
	}
	if c.Extras.Load != nil {
		info.LoadLevel = c.Extras.Load.String()
	}
	return info
}

// RoundHalfEven rounds x to the nearest integer, ties to even, after
// removing binary noise below 1e-9 (so 0.3 × 5 counts as the tie 1.5), and
// never returns less than 1.
func RoundHalfEven(x float64) int {
	x = math.Round(x*1e9) / 1e9
	n := int(math.RoundToEven(x))
	if n < 1 {
		return 1
	}
	return n
}

// CellID is the id of the cell with these values.
func CellID(cpus float64, web, pool int) string {
	return fmt.Sprintf("cpu_%s__web_%d__db_%d", FormatNumber(cpus), web, pool)
}

// FormatNumber writes a decimal in its shortest form (6, 0.5, 1.25).
func FormatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// BuildPlan derives the cells of the grid cpus × webMult × dbMult in grid
// order (cpus outermost), merging multiplier pairs that give the same cell.
func BuildPlan(cpus, webMult, dbMult []float64) []Cell {
	var cells []Cell
	index := map[string]int{}
	for _, c := range cpus {
		for _, wm := range webMult {
			web := RoundHalfEven(c * wm)
			for _, dm := range dbMult {
				pool := RoundHalfEven(float64(web) * dm)
				id := CellID(c, web, pool)
				if i, ok := index[id]; ok {
					cells[i].Mults = append(cells[i].Mults, [2]float64{wm, dm})
					continue
				}
				index[id] = len(cells)
				cells = append(cells, Cell{ID: id, CPUs: c, WebThreads: web, DBPool: pool,
					Mults: [][2]float64{{wm, dm}}})
			}
		}
	}
	return cells
}
