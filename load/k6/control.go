package k6

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// gracefulStop is how long iterations still running at the end of a
// scenario sweep writes may take to finish (crud.js's default too).
const gracefulStop = "5s"

// control says how the load sweep asks for reaches a user's script. k6
// takes its execution options from, lowest first: a --config file, the
// script's own options, K6_* environment variables, command-line flags;
// --vus and --duration replace any vus, duration, iterations, stages and
// scenarios below them, and no flag or variable sets a scenario.
type control int

const (
	// asIs runs the script unchanged: its one scenario already runs
	// sweep's load, built from __ENV as the bundled crud.js does.
	asIs control = iota
	// byFlags (closed model) puts --vus and --duration on k6's command
	// line, above the script's own vus, duration, iterations and stages.
	byFlags
	// byConfig (open model) gives k6 the arrival-rate scenario in a
	// --config file; the script sets no execution option that would
	// replace it.
	byConfig
)

// planControl decides how req's load reaches a script whose options are
// o. It returns the script's own options that sweep's load overrides,
// and an error wrapping ErrClash when the script's options would replace
// sweep's load and no flag can win over them (scenarios; any execution
// option under the open model).
func planControl(o ScriptOptions, load results.LoadInfo, d time.Duration) (control, []string, error) {
	if len(o.Scenarios) > 0 {
		if follows(o.Scenarios, load, d) {
			return asIs, nil, nil
		}
		return 0, nil, fmt.Errorf("%w: its options.scenarios (%s) would replace the load sweep runs (%s); "+
			"remove them, or build one scenario from __ENV.MODEL, __ENV.VUS or __ENV.RATE and __ENV.DURATION "+
			"as the bundled crud.js does", ErrClash, describeScenarios(o.Scenarios), describeLoad(load, d))
	}
	plain := o.plain()
	if load.Model != "open" {
		return byFlags, plain, nil
	}
	if len(plain) > 0 {
		return 0, nil, fmt.Errorf("%w: its options set %s, which would replace the arrival-rate scenario sweep "+
			"gives k6 (%s); remove them from the script's options", ErrClash, strings.Join(plain, ", "), describeLoad(load, d))
	}
	return byConfig, nil, nil
}

// follows reports whether the scenarios are one that runs exactly the
// load asked: constant-vus with its VUs, or constant-arrival-rate with
// its rate, for its duration.
func follows(scenarios map[string]Scenario, load results.LoadInfo, d time.Duration) bool {
	if len(scenarios) != 1 {
		return false
	}
	for _, s := range scenarios {
		if !sameDuration(s.Duration, d) {
			return false
		}
		switch {
		case load.Model == "closed" && s.Executor == "constant-vus":
			return s.VUs != nil && int(*s.VUs) == load.VUs
		case load.Model == "open" && s.Executor == "constant-arrival-rate":
			perS, ok := s.ratePerSecond()
			return ok && math.Abs(perS-load.Rate) <= 1e-3*max(1, load.Rate)
		}
	}
	return false
}

func sameDuration(text *string, d time.Duration) bool {
	if text == nil {
		return false
	}
	got, err := time.ParseDuration(*text)
	return err == nil && got == d
}

// ratePerSecond is an arrival-rate scenario's iterations per second
// (timeUnit defaults to 1s).
func (s Scenario) ratePerSecond() (float64, bool) {
	if s.Rate == nil {
		return 0, false
	}
	unit := time.Second
	if s.TimeUnit != nil {
		var err error
		if unit, err = time.ParseDuration(*s.TimeUnit); err != nil || unit <= 0 {
			return 0, false
		}
	}
	return *s.Rate / unit.Seconds(), true
}

func describeScenarios(scenarios map[string]Scenario) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		s := scenarios[name]
		what := s.Executor
		switch {
		case s.VUs != nil && s.Duration != nil:
			what += fmt.Sprintf(", %d VUs for %s", *s.VUs, *s.Duration)
		case s.Rate != nil && s.Duration != nil:
			perS, _ := s.ratePerSecond()
			what += fmt.Sprintf(", %s iterations/s for %s", formatRate(perS), *s.Duration)
		}
		parts = append(parts, name+": "+what)
	}
	return strings.Join(parts, "; ")
}

func describeLoad(load results.LoadInfo, d time.Duration) string {
	if load.Model == "open" {
		return fmt.Sprintf("%s iterations/s for %s", formatRate(load.Rate), d)
	}
	return fmt.Sprintf("%d VUs for %s", load.VUs, d)
}

func formatRate(r float64) string { return fmt.Sprintf("%g", math.Round(r*1000)/1000) }

// openConfig is the k6 config file (--config) of the open model: one
// constant-arrival-rate scenario running the script's default function.
// k6's rate is an integer per timeUnit, so a fractional rate is given
// per 1000 s (exact to 0.001/s), as crud.js does.
func openConfig(load results.LoadInfo, d time.Duration) ([]byte, error) {
	rate, unit := load.Rate, "1s"
	if rate != math.Trunc(rate) {
		rate, unit = math.Round(rate*1000), "1000s"
	}
	if rate < 1 {
		return nil, fmt.Errorf("open model: rate %g: want at least 0.001 iterations/s", load.Rate)
	}
	pre := max(1, load.VUs)
	scenario := map[string]any{
		"executor": "constant-arrival-rate", "rate": int64(rate), "timeUnit": unit,
		"duration": formatDuration(d), "preAllocatedVUs": pre, "maxVUs": max(pre, load.MaxVUs),
		"gracefulStop": gracefulStop,
	}
	return json.MarshalIndent(map[string]any{"scenarios": map[string]any{"sweep": scenario}}, "", "  ")
}
