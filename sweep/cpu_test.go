package sweep

import (
	"errors"
	"fmt"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep/pressure"
)

// TestProcessCPUCountsWaitedChildren: k6's CPU reaches the figure through
// RUSAGE_CHILDREN once it is waited for, user and system time both. dd
// copying byte by byte spends most of its time in the kernel.
func TestProcessCPUCountsWaitedChildren(t *testing.T) {
	dd, err := exec.LookPath("dd")
	if err != nil {
		t.Skip("no dd on PATH")
	}
	before := ProcessCPU()
	cmd := exec.Command(dd, "if=/dev/zero", "of=/dev/null", "bs=1", "count=30000")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if child <= 0 {
		t.Skip("the child's CPU time was not reported")
	}
	if grew := ProcessCPU() - before; grew < child {
		t.Errorf("ProcessCPU grew %s over a child that used %s (user %s, system %s)",
			grew, child, cmd.ProcessState.UserTime(), cmd.ProcessState.SystemTime())
	}
}

// TestDriverUse pins the driver's CPU figure (CPU time ÷ wall time) and
// the contention warning, which fires only above the engine's CPUs.
func TestDriverUse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		cellCPUs  float64
		host      int
		cpu, wall time.Duration
		cores     float64 // -1: no driver figure
		warning   string
	}{
		{"quarter of a core", 1, 4, 500 * time.Millisecond, 2 * time.Second, 0.25, ""},
		{"limit plus driver equal to the host", 1.75, 2, 500 * time.Millisecond, 2 * time.Second, 0.25, ""},
		{"limit plus driver over the host", 1.75, 2, 600 * time.Millisecond, 2 * time.Second, 0.3,
			"the target's limit (1.75 CPUs) plus the load driver's use (0.30 cores) exceed the engine's 2 CPUs: " +
				"the driver competes with the target; pin the target with --cpuset or drive load from another host"},
		{"host CPUs unknown", 8, 0, 3 * time.Second, time.Second, 3, ""},
		{"load on a swarm node", 1.75, 2, 600 * time.Millisecond, 2 * time.Second, 0.3, ""},
		{"no wall time", 1, 2, time.Second, 0, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &Runner{HostCPUs: tc.host}
			rec := results.Record{Cell: results.CellInfo{CPUs: tc.cellCPUs}, Measurement: results.Measurement{Requests: 1000}}
			if strings.Contains(tc.name, "swarm node") {
				rec.LoadNode = &results.NodeInfo{ID: "n3"}
			}
			r.driverUse(&rec, tc.cpu, tc.wall)
			switch {
			case tc.cores < 0 && rec.Driver != nil:
				t.Errorf("driver figure %+v, want none", *rec.Driver)
			case tc.cores >= 0 && (rec.Driver == nil || rec.Driver.CPUCoresMean != tc.cores):
				t.Errorf("driver figure %+v, want %g cores", rec.Driver, tc.cores)
			case tc.cores >= 0 && rec.Driver.CPUPerRequestUS != float64(tc.cpu.Microseconds())/1000:
				t.Errorf("driver CPU per request %v µs, want %v (CPU over 1000 requests)", rec.Driver.CPUPerRequestUS, float64(tc.cpu.Microseconds())/1000)
			}
			want := []string(nil)
			if tc.warning != "" {
				want = []string{tc.warning}
			}
			if !reflect.DeepEqual(rec.Warnings, want) {
				t.Errorf("warnings %q, want %q", rec.Warnings, want)
			}
		})
	}
}

// TestCheckEngineCPUs: limits above the engine, CPUs it lacks and CPU
// limits below the engine's minimum are bad input naming the flag.
func TestCheckEngineCPUs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cpus   []float64
		cpuset string
		flag   string // "": accepted
	}{
		{[]float64{1, 2}, "", ""},
		{[]float64{1}, "0-1", ""},
		{[]float64{1}, "1,0", ""},
		{[]float64{3}, "", "cpus"},
		{[]float64{1}, "2", "cpuset"},
		{[]float64{1}, "0-7", "cpuset"},
		{[]float64{1}, "1-0", "cpuset"},
	} {
		s := Spec{CPUs: tc.cpus, CPUSet: tc.cpuset}
		err := s.CheckEngineCPUs(2)
		var bad *BadInputError
		got := ""
		if errors.As(err, &bad) {
			got = bad.Field
		}
		if got != tc.flag || (err != nil && got == "") {
			t.Errorf("cpus %v cpuset %q on 2 CPUs: %v, want bad input naming %q", tc.cpus, tc.cpuset, err, tc.flag)
		}
	}
	s := testSpec()
	s.CPUs = []float64{0.005}
	if err := s.Validate(); !strings.Contains(fmt.Sprint(err), "{cpus}") {
		t.Errorf("cpus 0.005: Validate = %v, want bad input naming --cpus (the engine's minimum is 0.01)", err)
	}
}

// TestCPUSetTop pins the highest CPU of a list, -1 for none, and the
// message that tells the engine's range.
func TestCPUSetTop(t *testing.T) {
	t.Parallel()
	for list, want := range map[string]int{"": -1, ",": -1, "0": 0, "3,1": 3, "0-5,2": 5, "4-4": 4} {
		if got, err := cpusetTop(list); got != want || err != nil {
			t.Errorf("cpusetTop(%q) = %d, %v; want %d", list, got, err, want)
		}
	}
	// With no cpuset a one-CPU engine is fine.
	if err := (Spec{CPUs: []float64{1}}).CheckEngineCPUs(1); err != nil {
		t.Errorf("no cpuset on 1 CPU: %v", err)
	}
	err := (Spec{CPUs: []float64{1}, CPUSet: "0,3"}).CheckEngineCPUs(2)
	if want := `"0,3" names CPU 3, but the Docker Engine has 2 CPUs, numbered 0 to 1`; !strings.Contains(fmt.Sprint(err), want) {
		t.Errorf("cpuset 0,3 on 2 CPUs: %v, want %q", err, want)
	}
}

// TestEndUse: the driver's CPU is this process's CPU since the phase
// began, over the phase's wall time; a driver that ran elsewhere brings
// its own CPU and wall time.
func TestEndUse(t *testing.T) {
	t.Parallel()
	r := &Runner{Pressure: func() (pressure.Reading, error) { return pressure.Reading{}, errors.New("no psi") }}
	// The phase began 40 s ago with 20 s less CPU than now: half a core.
	u := phaseUse{cpu: ProcessCPU() - 20*time.Second, wall: time.Now().Add(-40 * time.Second), psiError: errors.New("no psi")}
	var rec results.Record
	r.endUse(&rec, u)
	if c := rec.Driver.CPUCoresMean; c < 0.5 || c > 0.55 {
		t.Errorf("in-process driver: %v cores, want 0.5 (20 s of CPU over 40 s)", c)
	}
	if rec.Host == nil || rec.Host.CPUPressureReason != "no psi" {
		t.Errorf("host %+v, want the pressure's reason", rec.Host)
	}
	rec = results.Record{Measurement: results.Measurement{DriverCPU: time.Second, DriverWall: 4 * time.Second}}
	r.endUse(&rec, u)
	if c := rec.Driver.CPUCoresMean; c != 0.25 {
		t.Errorf("remote driver: %v cores, want 0.25 (its 1 s of CPU over its 4 s)", c)
	}
}
