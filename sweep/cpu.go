package sweep

import (
	"fmt"
	"syscall"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// processCPU is the CPU time of this process and its waited-for children
// (k6 runs as a child and is waited for before the measured phase ends).
func processCPU() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// driverUse records the load generator's CPU over the measured phase and
// warns when the target's limit plus the generator exceed the host: the
// generator then takes CPU the target was meant to have.
func (r *Runner) driverUse(rec *results.Record, cpu, wall time.Duration) {
	if wall <= 0 {
		return
	}
	cores := cpu.Seconds() / wall.Seconds()
	rec.Driver = &results.DriverStats{CPUCoresMean: cores}
	if r.HostCPUs > 0 && rec.Cell.CPUs+cores > float64(r.HostCPUs) {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf(
			"the target's limit (%s CPUs) plus the load driver's use (%.2f cores) exceed the engine's %d CPUs: "+
				"the driver competes with the target; pin the target with --cpuset or drive load from another host",
			FormatNumber(rec.Cell.CPUs), cores, r.HostCPUs))
	}
}
