package sweep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// FindCell returns the cell of the spec with this id.
func (s Spec) FindCell(id string) (Cell, error) {
	cells := s.Cells()
	for _, c := range cells {
		if c.ID == id {
			return c, nil
		}
	}
	var some []string
	for i, c := range cells {
		if i == 5 {
			some = append(some, "…")
			break
		}
		some = append(some, c.ID)
	}
	return Cell{}, BadInput("cell", "%q is not a cell of this run; cells: %s", id, strings.Join(some, ", "))
}

// NextRep is the first repetition number of a cell with no folder yet.
func NextRep(run, cellID string) int {
	entries, _ := os.ReadDir(filepath.Join(run, results.CellsDir, cellID))
	next := 1
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "r")); err == nil && strings.HasPrefix(e.Name(), "r") {
			next = max(next, n+1)
		}
	}
	return next
}

// OneConfig narrows s to one configuration, web threads and pool at its
// one CPU limit, with the multipliers that give exactly that cell (so the
// spec saved with a search describes it); axes with several values are
// bad input, as a search measures one configuration.
func (s Spec) OneConfig(web, pool int) (Spec, Cell, error) {
	switch {
	case len(s.CPUs) != 1:
		return s, Cell{}, BadInput("cpus", "give one CPU limit, e.g. {cpus} 2: limit measures one configuration")
	case web <= 0:
		return s, Cell{}, BadInput("web", "give the web threads, e.g. {web} 4 (or {from} RUN_DIR {cell} CELL_ID)")
	case pool <= 0:
		return s, Cell{}, BadInput("pool", "give the DB pool size, e.g. {pool} 8")
	}
	s.WebMult = []float64{float64(web) / s.CPUs[0]}
	s.DBMult = []float64{float64(pool) / float64(web)}
	cells := s.Cells()
	if len(cells) != 1 {
		return s, Cell{}, BadInput("cpus",
			"these settings give %d configurations; limit measures one (give one value per axis)", len(cells))
	}
	return s, cells[0], nil
}
