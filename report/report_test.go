package report

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func buildFixture(t *testing.T, name string) *Report {
	t.Helper()
	return buildDir(t, filepath.Join("testdata", name))
}

// buildDir builds the report of the run directory dir with the default
// options.
func buildDir(t *testing.T, dir string) *Report {
	t.Helper()
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func itoa(i int) string {
	return string(rune('0'+i/100%10)) + string(rune('0'+i/10%10)) + string(rune('0'+i%10))
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"gop", "mixed", "limits"} {
		rep := buildFixture(t, name)
		charts, err := Charts(rep)
		if err != nil {
			t.Fatal(err)
		}
		renders := map[string]func(*bytes.Buffer) error{
			name + "-rps.txt":             func(b *bytes.Buffer) error { return WriteTerminal(b, rep, MetricRPS) },
			name + "-p99.txt":             func(b *bytes.Buffer) error { return WriteTerminal(b, rep, MetricP99) },
			name + "-report.md":           func(b *bytes.Buffer) error { return WriteMarkdown(b, rep, charts, ChartDir) },
			name + "-recommendation.json": func(b *bytes.Buffer) error { return WriteJSON(b, rep) },
		}
		if rep.HasMetric(MetricLimit) {
			renders[name+"-limit.txt"] = func(b *bytes.Buffer) error { return WriteTerminal(b, rep, MetricLimit) }
		}
		for file, render := range renders {
			t.Run(file, func(t *testing.T) {
				var b bytes.Buffer
				if err := render(&b); err != nil {
					t.Fatal(err)
				}
				testenv.Golden(t, filepath.Join("testdata", "golden", file), b.Bytes())
			})
		}
	}
}

func TestUnknownMetric(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "gop")
	if _, err := ParseMetric("latency"); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("ParseMetric(latency) = %v, want sweep.ErrBadInput", err)
	}
	if err := WriteTerminal(&bytes.Buffer{}, rep, MetricCPU); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("cpu matrix of a run without metrics = %v, want sweep.ErrBadInput", err)
	}
	if _, err := Build(&results.Run{}, Options{NoiseBand: 2}); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("noise band 2 = %v, want sweep.ErrBadInput", err)
	}
}

// TestStudyConclusions checks that the report reaches the Game of Pools
// study's own conclusions from its published table alone.
func TestStudyConclusions(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "gop")
	for _, cr := range rep.PerCPU {
		if got := cr.BestRPS.Cell.WebMult; got != 1.5 {
			t.Errorf("CPU %g: best RPS at web %g x CPU, study says 1.5", cr.CPUs, got)
		}
		if got := cr.BestP99.Cell.WebMult; got != 1 {
			t.Errorf("CPU %g: best P99 at web %g x CPU, study says 1", cr.CPUs, got)
		}
	}
	profiles := map[string]Profile{}
	for _, p := range rep.Profiles {
		profiles[p.Key] = p
	}
	if p := profiles["throughput"]; !p.Found || p.WebMult != 1.5 {
		t.Errorf("throughput profile = %+v, want web 1.5 x CPU", p)
	}
	if p := profiles["latency"]; !p.Found || p.WebMult != 1 {
		t.Errorf("latency profile = %+v, want web 1 x CPU", p)
	}
	if p := profiles["balanced"]; !p.Found || p.WebMult != 1.5 {
		t.Errorf("balanced profile = %+v, want web 1.5 x CPU (the study's balanced advice)", p)
	}
	if s := rep.Scaling; !s.NearLinear || s.R2 < 0.99 {
		t.Errorf("scaling = %+v, want near-linear", s)
	}
	pe := rep.PoolEffect
	if !pe.WithinNoise || 2*pe.CellsWithinNoise < pe.Cells {
		t.Errorf("pool effect = %+v, want the pool multiplier mostly within noise", pe)
	}
}

// TestMixedRun covers repetitions, ties, failed and missing cells,
// the error bound and the bottleneck labels.
func TestMixedRun(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "mixed")
	cells := cellsByID(rep)
	cases := []struct {
		id, status, bottleneck string
		eligible               bool
	}{
		{"cpu_1__web_1__db_2", "ok", BottleneckCPU, true},
		{"cpu_1__web_2__db_3", "ok", BottleneckPool, true},
		{"cpu_1__web_2__db_4", "ok", BottleneckError, false},
		{"cpu_1__web_1__db_3", "missing", "", false},
		{"cpu_2__web_2__db_3", "ok", BottleneckDB, true},
		{"cpu_2__web_2__db_4", "ok", BottleneckNone, true},
		{"cpu_2__web_4__db_6", "ok", BottleneckLoad, true},
		{"cpu_2__web_4__db_8", "failed", BottleneckError, false},
		{"cpu_2__web_4__db_12", "ok", "", true},
		{"cpu_2__web_2__db_6", "missing", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			c := cells[tc.id]
			if string(c.Status) != tc.status || c.Bottleneck != tc.bottleneck || c.eligible() != tc.eligible {
				t.Errorf("status %s, bottleneck %q, eligible %v; want %s, %q, %v",
					c.Status, c.Bottleneck, c.eligible(), tc.status, tc.bottleneck, tc.eligible)
			}
		})
	}
	cpu2 := rep.PerCPU[1]
	if c := cpu2.BestRPS.Cell; c.ID != "cpu_2__web_4__db_6" || c.RPS.N != 3 || c.RPS.Assumed {
		t.Errorf("CPU 2 best RPS = %s (n %d), want cpu_2__web_4__db_6 over 3 repetitions", c.ID, c.RPS.N)
	}
	if ties := ids(cpu2.BestP99.Ties); !slices.Equal(ties, []string{"cpu_2__web_2__db_4"}) {
		t.Errorf("CPU 2 best P99 ties = %v, want the overlapping cpu_2__web_2__db_4", ties)
	}
	if cells["cpu_2__web_4__db_12"].Failed != 1 {
		t.Errorf("cpu_2__web_4__db_12 failed reps = %d, want 1", cells["cpu_2__web_4__db_12"].Failed)
	}
	if len(rep.Missing) != 2 || len(rep.Warnings) != 0 {
		t.Errorf("missing %v, warnings %v; want 2 missing and no warning", rep.Missing, rep.Warnings)
	}
}
