package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// ErrLoadDiffers means the load a driver reports it ran is not the load
// the cell's record states: the measurement would be filed under another
// load than the one that produced it.
var ErrLoadDiffers = errors.New("the load that ran is not the one recorded")

// CheckLoad asks d, when it is a LoadChecker, whether it can run the
// measured load of the first job (jobs nil: the spec's first cell).
func (s Spec) CheckLoad(ctx context.Context, d Driver, jobs []Job) (string, error) {
	checker, ok := d.(LoadChecker)
	cells := s.Cells()
	if !ok || len(cells) == 0 {
		return "", nil
	}
	cell := cells[0]
	if len(jobs) > 0 {
		cell = jobs[0].Cell
	}
	return checker.CheckLoad(ctx, LoadRequest{BaseURL: s.URL, Load: s.LoadFor(cell, d.Name()), Duration: s.Duration.Std()})
}

// minRanShare is how much of the asked measured phase must have run; k6
// and the built-in driver both run at least the whole phase unless they
// are stopped.
const minRanShare = 0.9

// checkLoadRan compares the load the driver reports it ran (m) with the
// load recorded (want, for a phase of asked): a closed model's VUs must be
// the VUs recorded, an open model's must stay within its bound, and the
// phase must not be far shorter than asked. A figure the driver does not
// report (0) is not judged.
func checkLoadRan(want results.LoadInfo, asked time.Duration, m results.Measurement) error {
	var diffs []string
	switch {
	case m.VUsMax == 0:
	case want.Model == "closed" && m.VUsMax != want.VUs:
		diffs = append(diffs, fmt.Sprintf("%d VUs ran, the record states %d", m.VUsMax, want.VUs))
	case want.Model == "open" && m.VUsMax > max(want.VUs, want.MaxVUs):
		diffs = append(diffs, fmt.Sprintf("%d VUs ran, above the open model's bound of %d", m.VUsMax, max(want.VUs, want.MaxVUs)))
	}
	if m.DurationS > 0 && m.DurationS < minRanShare*asked.Seconds() {
		diffs = append(diffs, fmt.Sprintf("the phase ran %.2f s of the %s asked", m.DurationS, asked))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrLoadDiffers, strings.Join(diffs, "; "))
}

// saturatedSlowdown is how many times the fastest iteration the median
// one must take for a saturated target to be named as the cause of
// dropped iterations: the iterations queued there, not for a VU.
const saturatedSlowdown = 8

// droppedWarning names why the open model dropped iterations, from what
// the driver reports: the VUs it had (pre-allocated, grown to, bound) and
// how long iterations took (Little's law: VUs needed ≈ rate × iteration
// time). "" when none were dropped.
func droppedWarning(load results.LoadInfo, m results.Measurement) string {
	if m.DroppedIterations <= 0 {
		return ""
	}
	head := fmt.Sprintf("%d iterations were dropped: the open model's rate was not offered in full", m.DroppedIterations)
	bound, it := max(load.VUs, load.MaxVUs), m.IterationMS
	if m.VUsMax == 0 || it == nil {
		return head + " (raise --max-vus, or the target is saturated)"
	}
	head += ": "
	need := fmt.Sprintf("%s/s × %.1f ms per iteration needs about %.0f VUs",
		FormatNumber(load.Rate), it.Avg, math.Ceil(load.Rate*it.Avg/1000))
	switch {
	case it.Min > 0 && it.P50 >= saturatedSlowdown*it.Min:
		return head + fmt.Sprintf("the target is saturated: iterations took %.1f ms (median), %.0f× the fastest (%.1f ms), "+
			"so the %d VUs it had (of its bound %d) were busy waiting on it; more VUs would only queue more",
			it.P50, it.P50/it.Min, it.Min, m.VUsMax, bound)
	case m.VUsMax < bound:
		return head + fmt.Sprintf("too few pre-allocated VUs: it started with %d and added VUs up to %d of its bound %d "+
			"while the phase ran, and the iterations due meanwhile had no VU; %s", load.VUs, m.VUsMax, bound, need)
	}
	return head + fmt.Sprintf("the VU bound max-vus (%d) was reached: %s", bound, need)
}
