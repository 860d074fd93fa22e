package results

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGeneratorBoundEdges pins the sentence's figures and that a target
// with no measured CPU is never judged.
func TestGeneratorBoundEdges(t *testing.T) {
	t.Parallel()
	rec := Record{Measurement: Measurement{RPS: 1000},
		Resources: map[string]ResourceStats{"app": {CPUCoresMean: 0.5, CPUPctOfLimitMean: 50}},
		Driver:    &DriverStats{CPUPerRequestUS: 400},
		Host:      &HostStats{CPUPressure: &CPUPressure{SomeShare: 0.6}}}
	want := "host CPU pressure 60 % of the phase, driver 400 µs CPU per request against the target's 500 µs, target CPU 50 % of its limit"
	if got := GeneratorBound(rec, "app"); got != want {
		t.Errorf("GeneratorBound = %q, want %q", got, want)
	}
	rec.Resources["app"] = ResourceStats{CPUCoresMean: 0, CPUPctOfLimitMean: 0}
	if got := GeneratorBound(rec, "app"); got != "" {
		t.Errorf("a target with no CPU figure: %q, want nothing", got)
	}
}

// TestLittlesEdges: nothing is judged without users, requests or a mean
// latency; an iteration figure of zero leaves the expectation at 1; the
// ratio is kept to four places.
func TestLittlesEdges(t *testing.T) {
	t.Parallel()
	closed := LoadInfo{Model: "closed", VUs: 10}
	base := Measurement{Requests: 1000, DurationS: 10, LatencyMS: Latency{Avg: 100}}
	for name, c := range map[string]struct {
		load LoadInfo
		m    Measurement
	}{
		"no users":        {LoadInfo{Model: "closed"}, base},
		"no requests":     {closed, Measurement{DurationS: 10, LatencyMS: Latency{Avg: 100}}},
		"no mean latency": {closed, Measurement{Requests: 1000, DurationS: 10}},
	} {
		if r, e, ok := Littles(c.load, c.m); ok {
			t.Errorf("%s: judged (%v, %v)", name, r, e)
		}
	}
	for name, it := range map[string]struct {
		ms *Latency
		n  int64
	}{"iterations of no length": {&Latency{Avg: 0}, 500}, "no iterations": {&Latency{Avg: 200}, 0}} {
		m := base
		m.IterationMS, m.Iterations = it.ms, it.n
		if r, e, ok := Littles(closed, m); !ok || r != 1 || e != 1 {
			t.Errorf("%s: %v %v %v, want ratio 1, expected 1", name, r, e, ok)
		}
	}
	rec := Record{Load: closed, Measurement: Measurement{Requests: 1000, DurationS: 10, LatencyMS: Latency{Avg: 123.4567}}}
	rec.SetLittles()
	if rec.LittlesRatio == nil || *rec.LittlesRatio != 1.2346 || *rec.LittlesExpected != 1 {
		t.Errorf("ratio %v expected %v, want 1.2346 and 1", rec.LittlesRatio, rec.LittlesExpected)
	}
}

// TestLittlesOffEdges: an expectation of zero counts as 1; a ratio just
// inside the tolerance is within it, one past it is not.
func TestLittlesOffEdges(t *testing.T) {
	t.Parallel()
	f := func(x float64) *float64 { return &x }
	if w := (Record{LittlesRatio: f(1), LittlesExpected: f(0)}).LittlesOff(); w != "" {
		t.Errorf("expected 0, ratio 1: %q, want within", w)
	}
	// 1.125 / 1.25 is 0.9 to the last bit: 1 − 0.9 is a hair under 0.1.
	if w := (Record{LittlesRatio: f(1.125), LittlesExpected: f(1.25)}).LittlesOff(); w != "" {
		t.Errorf("off by the tolerance: %q, want within", w)
	}
	if w := (Record{LittlesRatio: f(1.0), LittlesExpected: f(1.25)}).LittlesOff(); w == "" {
		t.Error("off by 20 %: no warning")
	}
}

// TestWritePIDReplaces: the lock file holds this process's PID alone,
// whatever an earlier owner wrote.
func TestWritePIDReplaces(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lock")
	if err := os.WriteFile(path, []byte("1234567890\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writePID(f); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != strconv.Itoa(os.Getpid())+"\n" || readPID(f) != os.Getpid() {
		t.Errorf("lock file %q, want this PID alone", b)
	}
	ro, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := writePID(ro); err == nil {
		t.Error("writePID on a read-only file: no error")
	}
}

// TestReadIntervalsNamesTheLine: a bad row is named by its line in the
// file, the header being line 1.
func TestReadIntervalsNamesTheLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "samples.csv")
	if err := os.WriteFile(path, []byte("t,rps,errors,p99_ms\n1,10,0,1\n2,10,0,1\nthree,10,0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadIntervals(path); err == nil || !strings.Contains(err.Error(), "samples.csv line 4: t:") {
		t.Errorf("err %v, want line 4 named", err)
	}
}
