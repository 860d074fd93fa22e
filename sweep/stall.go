package sweep

// A target that stops answering during a measured phase and stays so to
// its end (a container frozen by its cgroup's freezer behind the engine's
// back, a process wedged) leaves its requests in flight, and a phase's
// end does not count those as errors: such a cell once came out ok, with
// the figures of the second before the freeze over an 8 s phase. Now a
// phase whose last seconds saw nothing answered, for far longer than any
// request or iteration it measured took, fails the cell.

import (
	"errors"
	"fmt"

	"github.com/sweep-tool/sweep/results"
)

// ErrStalled marks a cell whose target answered nothing in the last part
// of its measured phase.
var ErrStalled = errors.New("the target stopped answering")

// stallFloor is the shortest silence at a phase's end that is judged: a
// second's interval may hold no answer of a slow target by chance.
const stallFloor = 2.0 // seconds

// checkAnswering fails a measured phase whose intervals end in a silence
// (no request answered, failed or refused) longer than stallFloor, twice
// the longest request and iteration the phase measured, and, for an open
// model, five of its arrivals' spacing: a target that answers slowly
// answers a request within its latency, and a silence that long is a
// target that stopped. Intervals absent (a driver that reports none) or
// all silent (the requests' failures speak then) are not judged.
func checkAnswering(load results.LoadInfo, m results.Measurement, intervals []results.Interval) error {
	if len(intervals) == 0 || m.Requests == 0 {
		return nil
	}
	end := intervals[len(intervals)-1].T // the drivers report every second, silent ones too
	last := -1.0
	for _, iv := range intervals {
		if iv.Requests > 0 || iv.Errors > 0 || iv.ConnectErrors > 0 {
			last = iv.T
		}
	}
	if last < 0 {
		return nil
	}
	silence := end - last
	bound := max(stallFloor, 2*m.LatencyMS.Max/1000)
	if m.IterationMS != nil {
		bound = max(bound, 2*m.IterationMS.Max/1000)
	}
	if load.Model == "open" && load.Rate > 0 {
		bound = max(bound, 5/load.Rate)
	}
	if silence <= bound {
		return nil
	}
	return fmt.Errorf("%w: nothing was answered in the last %.1f s of the %.1f s measured phase (the longest request took %s ms); "+
		"its figures are of the first %.1f s only", ErrStalled, silence, end, FormatNumber(m.LatencyMS.Max), last)
}
