package results

import (
	"strings"
	"testing"
)

func TestGeneratorBound(t *testing.T) {
	t.Parallel()
	// A target of 1 CPU at 1000 rps using 0.5 cores: 500 µs per request.
	rec := func(pressure float64, driverUS, targetPct float64) Record {
		return Record{
			Measurement: Measurement{RPS: 1000},
			Resources:   map[string]ResourceStats{"app": {CPUCoresMean: 0.5, CPUPctOfLimitMean: targetPct}},
			Driver:      &DriverStats{CPUCoresMean: driverUS / 1000, CPUPerRequestUS: driverUS},
			Host:        &HostStats{CPUPressure: &CPUPressure{SomeShare: pressure}},
		}
	}
	noPSI := rec(0.9, 400, 50)
	noPSI.Host = &HostStats{CPUPressureReason: "CPU pressure is not available"}
	noTarget := rec(0.9, 400, 50)
	noTarget.Resources = nil
	// the same target with the CPU its threads waited for read: 0.4
	// cores waited on a 1-CPU limit puts it at 90 % (starved by its
	// neighbours, not idle); 0.1 cores at 60 %, still spare
	waited := func(cores float64) Record {
		r := rec(0.9, 400, 50)
		app := r.Resources["app"]
		app.CPULimitCores, app.CPUWaitCoresMean = 1, &cores
		r.Resources = map[string]ResourceStats{"app": app}
		return r
	}
	cases := []struct {
		name  string
		rec   Record
		bound bool
	}{
		{"all three hold", rec(0.6, 400, 50), true},
		{"at the thresholds", rec(0.25, 250, 84.9), true},
		{"host not contended", rec(0.2, 400, 50), false},
		{"cheap driver (built-in)", rec(0.9, 40, 50), false},
		{"target at its limit", rec(0.9, 400, 85), false},
		{"no pressure on this kernel", noPSI, false},
		{"no target figures", noTarget, false},
		{"target waited for a CPU", waited(0.4), false},
		{"target waited a little", waited(0.1), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := GeneratorBound(c.rec, "app")
			if (got != "") != c.bound {
				t.Errorf("GeneratorBound = %q, want bound=%v", got, c.bound)
			}
			if c.bound && !strings.Contains(got, "µs CPU per request against the target's 500 µs") {
				t.Errorf("evidence %q does not compare the CPU per request", got)
			}
			if w := c.rec.Resources["app"].CPUWaitCoresMean; c.bound && (w != nil) != strings.Contains(got, "% more waited for") {
				t.Errorf("evidence %q: the wait %v read, want it named exactly when read", got, w)
			}
		})
	}
}
