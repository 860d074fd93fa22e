package sweep

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/pressure"
)

// MinCPUs is the smallest CPU limit the Docker Engine accepts.
const MinCPUs = 0.01

// CheckEngineCPUs checks the CPU limits and --cpuset against the engine's
// CPU count before anything starts: a limit above it, or a CPU the engine
// lacks (CPUs are numbered from 0), is bad input.
func (s Spec) CheckEngineCPUs(ncpu int) error {
	for _, c := range s.CPUs {
		if c > float64(ncpu) {
			return BadInput("cpus", "%s is above the Docker Engine's %d CPUs; give limits up to %d", FormatNumber(c), ncpu, ncpu)
		}
	}
	top, err := cpusetTop(s.CPUSet)
	switch {
	case err != nil:
		return err
	case top >= ncpu:
		return BadInput("cpuset", "%q names CPU %d, but the Docker Engine has %d CPUs, numbered 0 to %d",
			s.CPUSet, top, ncpu, ncpu-1)
	}
	return nil
}

// cpusetTop is the highest CPU a CPU list like "0-1,3" names (-1 for an
// empty list); a range that runs backwards is bad input.
func cpusetTop(list string) (int, error) {
	top := -1
	for _, part := range strings.Split(list, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		first, err1 := strconv.Atoi(lo)
		last, err2 := first, error(nil)
		if isRange {
			last, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || last < first {
			return 0, BadInput("cpuset", "%q is not a CPU list like 1 or 0-1 or 1,3", list)
		}
		top = max(top, last)
	}
	return top, nil
}

// ProcessCPU is the CPU time of this process and its waited-for children
// (k6 runs as a child and is waited for before the measured phase ends).
func ProcessCPU() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// phaseUse is what startUse read before a measured phase.
type phaseUse struct {
	cpu      time.Duration
	wall     time.Time
	psi      pressure.Reading
	psiError error
}

func (r *Runner) readPressure() (pressure.Reading, error) {
	if r.Pressure != nil {
		return r.Pressure()
	}
	return pressure.ReadCPU()
}

// startUse reads the driver's CPU time and the host's CPU pressure before
// a measured phase.
func (r *Runner) startUse() phaseUse {
	u := phaseUse{cpu: ProcessCPU(), wall: time.Now()}
	u.psi, u.psiError = r.readPressure()
	return u
}

// endUse records, for the phase that began at u, the driver's CPU use
// (see driverUse), the host's CPU pressure, and the Little's law check.
func (r *Runner) endUse(rec *results.Record, u phaseUse) {
	wall := time.Since(u.wall)
	cpu, dwall := ProcessCPU()-u.cpu, wall
	if rec.DriverWall > 0 {
		// the driver ran away from this process: its own figures
		cpu, dwall = rec.DriverCPU, rec.DriverWall
	}
	r.driverUse(rec, cpu, dwall)
	rec.Host = hostUse(u, wall, r.readPressure)
	rec.SetLittles()
}

// hostUse is the host's CPU pressure over a phase of wall that began at
// u; a kernel without it gives a nil pressure and the reason.
func hostUse(u phaseUse, wall time.Duration, read func() (pressure.Reading, error)) *results.HostStats {
	if u.psiError != nil {
		return &results.HostStats{CPUPressureReason: u.psiError.Error()}
	}
	after, err := read()
	if err != nil {
		return &results.HostStats{CPUPressureReason: err.Error()}
	}
	p, ok := pressure.Over(u.psi, after, wall)
	if !ok {
		return &results.HostStats{CPUPressureReason: "the pressure total went backwards during the phase"}
	}
	return &results.HostStats{CPUPressure: &p}
}

// driverUse records the load generator's CPU over the measured phase, in
// cores and per answered request, and warns when the target's limit plus
// the generator exceed the host: the generator then takes CPU the target
// was meant to have (not when the load ran on a swarm node of its own).
func (r *Runner) driverUse(rec *results.Record, cpu, wall time.Duration) {
	if wall <= 0 {
		return
	}
	cores := cpu.Seconds() / wall.Seconds()
	rec.Driver = &results.DriverStats{CPUCoresMean: cores}
	if rec.Requests > 0 {
		rec.Driver.CPUPerRequestUS = float64(cpu.Microseconds()) / float64(rec.Requests)
	}
	if r.HostCPUs > 0 && rec.LoadNode == nil && rec.Cell.CPUs+cores > float64(r.HostCPUs) {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf(
			"the target's limit (%s CPUs) plus the load driver's use (%.2f cores) exceed the engine's %d CPUs: "+
				"the driver competes with the target; pin the target with --cpuset or drive load from another host",
			FormatNumber(rec.Cell.CPUs), cores, r.HostCPUs))
	}
}
