package sweep

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// ErrLoadDiffers means the load a driver reports it ran is not the load
// the cell's record states: the measurement would be filed under another
// load than the one that produced it.
var ErrLoadDiffers = errors.New("the load that ran is not the one recorded")

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
