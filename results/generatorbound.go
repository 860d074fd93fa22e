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
	// GeneratorTargetPct: the target's mean CPU, with the CPU it waited
	// for where that was read, stayed below this share of its limit, in
	// percent.
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
//   - the target had CPU to spare: its mean, and the CPU its threads
//     waited for where that was read (ResourceStats.CPUWaitCoresMean),
//     stayed below GeneratorTargetPct of its limit, so it was not the
//     target's CPU that set the pace. Without the wait a target held
//     back by others on its CPUs (a pinned neighbour, an interleaved
//     run's idle targets) looks as idle as one starved of requests.
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
	used := target.CPUPctOfLimitMean
	wanted, waitRead := target.WantedPct()
	if pressure < GeneratorPressureShare || driverUS < GeneratorCPUShare*targetUS || max(used, wanted) >= GeneratorTargetPct {
		return ""
	}
	spare := fmt.Sprintf("target CPU %.0f %% of its limit", used)
	if waitRead {
		spare += fmt.Sprintf(" and %.0f %% more waited for", wanted-used)
	}
	return fmt.Sprintf("host CPU pressure %.0f %% of the phase, driver %.0f µs CPU per request against the target's %.0f µs, %s",
		pressure*100, driverUS, targetUS, spare)
}
