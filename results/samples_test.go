package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
)

func TestWriteSamplesCSV(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		s    Series
	}{
		{"all-series", Series{
			Intervals: []Interval{
				{T: 1.0003, Requests: 120, Errors: 0, P99MS: 12.345},
				{T: 2.001, Requests: 130, Errors: 2, P99MS: 15},
				{T: 3.0, Requests: 125, Errors: 0},
				{T: 3.5, Requests: 60, Errors: 1, P99MS: 11}, // short last interval
			},
			Target: []ContainerSample{
				{T: 0.62, CPUCores: 0.4981, CPUPctOfLimit: 99.62, ThrottledPeriods: 9, MemBytes: 10485760},
				{T: 1.62, CPUCores: 0.5, CPUPctOfLimit: 100, ThrottledPeriods: 10, MemBytes: 10489856},
				// 2.6 is lost: the engine did not answer
				{T: 3.61, CPUCores: 0.31, CPUPctOfLimit: 62, ThrottledPeriods: 4, MemBytes: 10493952},
				{T: 4.62, CPUCores: 0.01, CPUPctOfLimit: 2, MemBytes: 10493952}, // after the end
			},
			DB: []DBSample{
				{T: 1.01, Total: 10, Active: 8, Idle: 2, TPS: 119.4},
				{T: 2.01, Missing: true},
				{T: 3.02, Total: 10, Active: 9, Idle: 0, IdleInTx: 1, TPS: 124.96},
				{T: 4.01, Total: 10, Active: 10, TPS: 60},
			},
		}},
		{"samplers-only", Series{
			Target: []ContainerSample{{T: 1.1, CPUCores: 1.25, CPUPctOfLimit: 62.5, MemBytes: 1}},
			DB:     []DBSample{{T: 0.99, Total: 3, Idle: 3}, {T: 2.0, Total: 4, Active: 1, Idle: 3, TPS: 2}},
		}},
		{"nothing", Series{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			if err := WriteSamplesCSV(&buf, c.s); err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "samples", c.name+".csv"), buf.Bytes())
		})
	}
}

func TestWriteSamplesIsAtomic(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := Series{Intervals: []Interval{{T: 1, Requests: 5}}}
	if err := WriteSamples(dir, s); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != SamplesFile {
		t.Fatalf("dir holds %v, want only %s", entries, SamplesFile)
	}
	got, err := os.ReadFile(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteSamplesCSV(&want, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file = %q, want %q", got, want.Bytes())
	}
}

// TestSamplesRate pins the rps column: an interval's requests over its
// own length (the time since the previous interval), and an interval of
// no length gives its count rather than +Inf.
func TestSamplesRate(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	err := WriteSamplesCSV(&buf, Series{Intervals: []Interval{
		{T: 1, Requests: 100},
		{T: 1.5, Requests: 60},
		{T: 2.5, Requests: 90},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(buf.String()), "\n")
	var got []string
	for _, r := range rows[1:] {
		got = append(got, strings.Split(r, ",")[1])
	}
	// Seconds 1, 2, 3 hold the intervals ending at 1 (100 in 1 s), 1.5 (60
	// in 0.5 s) and 2.5 (90 in 1 s).
	if want := []string{"100.0", "120.0", "90.0"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("rps column %v, want %v", got, want)
	}
	buf.Reset()
	if err := WriteSamplesCSV(&buf, Series{Intervals: []Interval{{T: 0, Requests: 7}}}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.Split(buf.String(), "\n")[1], ",")[1]; got != "7.0" {
		t.Errorf("a zero-length interval's rps = %q, want 7.0", got)
	}
}
