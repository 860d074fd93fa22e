package sweep

import (
	"fmt"
	"slices"

	"github.com/sweep-tool/sweep/results"
)

// Strategies of a run: how many cells are measured, and how long.
const (
	// StrategyGrid measures every cell at the spec's warm-up and
	// duration (Spec.Strategy "" is the grid, so a grid spec stays the
	// spec it was).
	StrategyGrid = "grid"
	// StrategyHalving is successive halving (package strategy/halving):
	// every cell briefly, the cells that could still win longer, the
	// finalists in full.
	StrategyHalving = "halving"
)

// ParseStrategy checks a strategy's name and returns it as Spec.Strategy
// holds it: "" for the grid.
func ParseStrategy(flag, name string) (string, error) {
	return parseOneOf(flag, name, StrategyGrid, StrategyHalving)
}

// parseOneOf reads a name that is the default (given as def or empty,
// held as "") or the other one choice, as Spec holds it.
func parseOneOf(flag, name, def, other string) (string, error) {
	switch name {
	case def, "":
		return "", nil
	case other:
		return name, nil
	}
	return "", BadInput(flag, "%q is not one of %s, %s", name, def, other)
}

// Dir is the job's folder in the run directory run: cells/<id>/r<rep>,
// cells/<id>/round<k> for a screening round's job, cells/<id>/control<k>
// for lane k's control, cells/<id>/control<k>.<seq> for the run's seq-th
// control measurement.
func (j Job) Dir(run string) string {
	if j.Control > 0 && j.Seq > 0 {
		return results.ControlSeqDir(run, j.Cell.ID, j.Control, j.Seq)
	}
	if j.Control > 0 {
		return results.ControlDir(run, j.Cell.ID, j.Control)
	}
	if j.Screening && j.Fidelity != nil {
		return results.ScreenDir(run, j.Cell.ID, j.Fidelity.Round)
	}
	return results.CellDir(run, j.Cell.ID, j.Rep)
}

// Label names the job in progress and log lines: r<rep>, control<k> for
// lane k's control, or control<k>.<seq>.
func (j Job) Label() string {
	if j.Control > 0 && j.Seq > 0 {
		return fmt.Sprintf("control%d.%d", j.Control, j.Seq)
	}
	if j.Control > 0 {
		return fmt.Sprint("control", j.Control)
	}
	return fmt.Sprint("r", j.Rep)
}

// Add adds what another run of the runner did (a strategy's next round)
// to s; OverheadS becomes the median over both.
func (s *Summary) Add(o Summary) {
	s.Records = append(s.Records, o.Records...)
	s.Skipped += o.Skipped
	s.OverheadS = overhead(s.Records)
}

// validStrategy reports whether Spec.Strategy names a strategy.
func validStrategy(s string) bool {
	return slices.Contains([]string{"", StrategyGrid, StrategyHalving}, s)
}
