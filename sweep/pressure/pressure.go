// Package pressure reads the kernel's CPU pressure stall information
// (PSI, /proc/pressure/cpu): how much of the time runnable tasks waited
// for a CPU. A sweep's load driver shares the host with the stack; when
// the host's CPUs are oversubscribed the driver's requests wait to be
// sent, and that shows here before it shows anywhere in the target. It is
// a leaf package (standard library only) so the runner can read it beside
// the driver's own CPU time.
package pressure

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// CPUPath is where Linux (4.20 and later, with PSI enabled) exposes the
// CPU pressure.
const CPUPath = "/proc/pressure/cpu"

// ErrUnavailable means the kernel does not expose CPU pressure (an older
// kernel, PSI disabled with psi=0, or not Linux); the cause is wrapped.
var ErrUnavailable = errors.New("CPU pressure is not available")

// ErrFormat means the file did not hold a "some" line as the kernel
// writes it.
var ErrFormat = errors.New("unexpected CPU pressure format")

// Reading is the "some" line at one moment.
type Reading struct {
	// Avg10 is the kernel's 10-second average, in percent.
	Avg10 float64
	// Total is the time, since boot, in which at least one task waited.
	Total time.Duration
}

// ReadCPU reads CPUPath.
func ReadCPU() (Reading, error) { return Read(CPUPath) }

// Read reads a PSI file such as /proc/pressure/cpu.
func Read(path string) (Reading, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Reading{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return Parse(data)
}

// Parse reads the "some" line of a PSI file:
//
//	some avg10=0.12 avg60=0.05 avg300=0.01 total=123456
func Parse(data []byte) (Reading, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		if kind != "some" {
			continue
		}
		var rd Reading
		var haveAvg, haveTotal bool
		for _, field := range strings.Fields(rest) {
			key, val, _ := strings.Cut(field, "=")
			switch key {
			case "avg10":
				f, err := strconv.ParseFloat(val, 64)
				if err != nil {
					return Reading{}, fmt.Errorf("%w: avg10=%q", ErrFormat, val)
				}
				rd.Avg10, haveAvg = f, true
			case "total":
				us, err := strconv.ParseUint(val, 10, 63)
				if err != nil {
					return Reading{}, fmt.Errorf("%w: total=%q", ErrFormat, val)
				}
				rd.Total, haveTotal = time.Duration(us)*time.Microsecond, true
			}
		}
		if !haveAvg || !haveTotal {
			return Reading{}, fmt.Errorf("%w: some line without avg10 and total", ErrFormat)
		}
		return rd, nil
	}
	return Reading{}, fmt.Errorf("%w: no some line", ErrFormat)
}

// Over is the pressure between two readings taken wall apart: the share
// of that time in which a task waited for a CPU, and the 10-second
// average at the end. A total that went backwards (another boot) or no
// wall time gives ok false.
func Over(before, after Reading, wall time.Duration) (results.CPUPressure, bool) {
	if wall <= 0 || after.Total < before.Total {
		return results.CPUPressure{}, false
	}
	share := min(1, float64(after.Total-before.Total)/float64(wall))
	return results.CPUPressure{SomeShare: share, SomeAvg10: after.Avg10}, true
}
