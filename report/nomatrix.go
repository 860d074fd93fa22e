package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// noMatrixError is Build's error when no CPU limit has a cell that may
// win. To errors.Is it is results.ErrNoFinishedCells, the class its
// callers treat as nothing to report (IsInput, a halving round with no
// survivor), but its text says what happened: cells that finished ok
// and met the SLO at no level did finish.
type noMatrixError struct{ run, why string }

func (e *noMatrixError) Error() string {
	return fmt.Sprintf("run %s: nothing to report: %s", e.run, e.why)
}

func (e *noMatrixError) Is(target error) bool { return target == results.ErrNoFinishedCells }

// shownReasons is how many cells' reasons whyNoMatrix names.
const shownReasons = 3

// whyNoMatrix says why none of cells (a CPU limit's, or a whole run's)
// may win: none finished ok, each named with its reason; or those that
// did met the SLO at no level of their search, the SLO and the lowest
// level tried named; or each cell with why it may not win.
func whyNoMatrix(cells []*Cell) string {
	var ok, other []*Cell
	for _, c := range cells {
		switch {
		case c.Baseline:
		case c.Status == results.StatusOK:
			ok = append(ok, c)
		default:
			other = append(other, c)
		}
	}
	switch {
	case len(ok) == 0:
		return "no cell finished ok" + reasons(other)
	case !slices.ContainsFunc(ok, heldSome) && len(other) == 0:
		return "every cell ran and none met " + missedSLO(ok)
	case !slices.ContainsFunc(ok, heldSome):
		return fmt.Sprintf("%d of %d cells finished ok and none met %s", len(ok), len(ok)+len(other), missedSLO(ok)) + reasons(other)
	}
	return "no cell that finished ok may win" + reasons(append(ok, other...))
}

// heldSome reports whether c is no --find-limit cell or one whose search
// found a level that met the SLO.
func heldSome(c *Cell) bool { return c.SafeLimit == nil || c.SafeLimit.held() }

// missedSLO names the SLO that cells, none of which held it at any
// level, missed, and the lowest level their searches tried.
func missedSLO(cells []*Cell) string {
	s := cells[0].SafeLimit
	lowest := 0
	for _, c := range cells {
		if f := c.SafeLimit.FailsAt; f > 0 && (lowest == 0 || f < lowest) {
			lowest = f
		}
	}
	out := fmt.Sprintf("the SLO %s at any level", s.SLO)
	if lowest > 0 {
		out += fmt.Sprintf(": the lowest level tried, %s=%d, failed", s.Model, lowest)
	}
	return out
}

// reasons is "; <cell>: <why it may not win>" for the first shownReasons
// cells, then how many more.
func reasons(cells []*Cell) string {
	var b strings.Builder
	for i, c := range cells {
		if i == shownReasons {
			fmt.Fprintf(&b, "; %d more", len(cells)-i)
			break
		}
		fmt.Fprintf(&b, "; %s: %s", c.ID, c.Ineligible)
	}
	return b.String()
}
