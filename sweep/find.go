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
