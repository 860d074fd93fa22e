package results

import "fmt"

// The generator-bound rule's thresholds (see GeneratorBound).
const (
	// GeneratorPressureShare: runnable tasks on the host waited for a CPU
	// at least this share of the measured phase (PSI cpu some).
	GeneratorPressureShare = 0.25
	// GeneratorCPUShare: the driver spent at least this share of the
	// target's CPU time per request.
	GeneratorCPUShare = 0.5
	// GeneratorTargetPct: the target's mean CPU stayed below this share
	// of its limit, in percent.
	GeneratorTargetPct = 85
)

// GeneratorBound says, with its evidence, whether a measured phase was
// probably limited by its load generator rather than by the target; ""
// when it was not, or when the record lacks a figure the rule needs. All
// three must hold:
//
//   - the host's CPUs were contended: tasks waited for a CPU in at least
//     GeneratorPressureShare of the phase, so a driver on this host waited
//     to send requests too;
//   - the driver is costly next to the target: its CPU per request is at
//     least GeneratorCPUShare of the target's (the target's mean cores
//     over its RPS), so its share of the contended CPUs is not small;
//   - the target had CPU to spare: its mean stayed below
//     GeneratorTargetPct of its limit, so it was not the target's CPU
//     that set the pace.
//
// A driver that waits for a CPU counts the wait as latency, so its own
// figures (and its Little's ratio) look healthy; this rule reads the host
// and the two processes' CPU instead. The generator check (the same cell
// with the built-in driver) confirms it.
func GeneratorBound(rec Record, service string) string {
	if rec.Host == nil || rec.Host.CPUPressure == nil || rec.Driver == nil || rec.RPS <= 0 {
		return ""
	}
	target, ok := rec.Resources[service]
	if !ok || target.CPUCoresMean <= 0 {
		return ""
	}
	pressure := rec.Host.CPUPressure.SomeShare
	driverUS := rec.Driver.CPUPerRequestUS
	targetUS := target.CPUCoresMean / rec.RPS * 1e6
	if pressure < GeneratorPressureShare || driverUS < GeneratorCPUShare*targetUS ||
		target.CPUPctOfLimitMean >= GeneratorTargetPct {
		return ""
	}
	return fmt.Sprintf("host CPU pressure %.0f %% of the phase, driver %.0f µs CPU per request against the target's %.0f µs, "+
		"target CPU %.0f %% of its limit", pressure*100, driverUS, targetUS, target.CPUPctOfLimitMean)
}
