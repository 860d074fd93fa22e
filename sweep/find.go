package sweep

import (
	"encoding/json"
	"fmt"
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

// FindSavedCell finds cell id in the run meta describes, before anything
// else about the run (its database, script or engine) is asked for.
func FindSavedCell(meta results.Meta, id string) (Cell, error) {
	var s Spec
	if err := json.Unmarshal(meta.Spec, &s); err != nil {
		return Cell{}, fmt.Errorf("spec in sweep.json: %w", err)
	}
	return s.FindCell(id)
}

// SpecOf reads the spec an earlier run saved in its sweep.json. The DSN
// is not saved: dsn fills it, and is needed exactly when the run sampled
// a database (any DSN: a changed host or password is no other spec). The k6
// script's hash is taken again from its file, so a script edited since
// the run differs from the saved spec (see DiffSpecs).
func SpecOf(meta results.Meta, dsn string) (Spec, error) {
	var s Spec
	if err := json.Unmarshal(meta.Spec, &s); err != nil {
		return s, fmt.Errorf("spec in sweep.json: %w", err)
	}
	s.DBDSN = dsn
	var err error
	if s.Script, err = s.Script.rehash(); err != nil {
		return s, err
	}
	switch sampled := meta.SampledDB(); {
	case sampled && dsn == "":
		return s, BadInput("db-dsn", "the run sampled a database; give its DSN with --db-dsn or SWEEP_DB_DSN")
	case !sampled && dsn != "":
		return s, BadInput("db-dsn", "the run used no database; drop --db-dsn and SWEEP_DB_DSN")
	}
	return s, nil
}
