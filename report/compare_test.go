package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestParseGates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []Gate
		err  bool
	}{
		{"rps:-5%,p99:+10%", []Gate{{MetricRPS, -5}, {MetricP99, 10}}, false},
		{" errors:+0.5% ", []Gate{{MetricErrors, 0.5}}, false},
		{"errors:+0.5", nil, true}, // no %: 0.5 points or 50 %?
		{"rps:-5", nil, true},
		{"rps:5%", nil, true},
		{"cpu:+5%", nil, true},
		{"rps", nil, true},
		{"rps:-x%", nil, true},
		{"rps:-0%", nil, true},
		{"", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseGates(tc.in)
			if tc.err {
				if !errors.Is(err, sweep.ErrBadInput) {
					t.Fatalf("ParseGates(%q) = %v, %v; want sweep.ErrBadInput", tc.in, got, err)
				}
				return
			}
			if err != nil || len(got) != len(tc.want) {
				t.Fatalf("ParseGates(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("gate %d = %v, want %v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// scaledRun writes the mixed fixture with every ok repetition's RPS and
// P99 multiplied, and loads it.
func scaledRun(t *testing.T, rps, p99 float64) *results.Run {
	t.Helper()
	cells := mixedCells()
	for i := range cells {
		for j := range cells[i].reps {
			r := &cells[i].reps[j]
			r.RPS *= rps
			r.LatencyMS.P99 *= p99
		}
	}
	dir := t.TempDir()
	writeRun(t, dir, "scaled", mixedSpec, cells)
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestGateTrips pins a gate's edges: the limit itself does not trip, a
// negative limit trips only below it and a zero limit only above it.
func TestGateTrips(t *testing.T) {
	t.Parallel()
	cases := []struct {
		g     Gate
		delta float64
		want  bool
	}{
		{Gate{MetricRPS, -5}, -5, false}, {Gate{MetricRPS, -5}, -5.01, true}, {Gate{MetricRPS, -5}, 3, false},
		{Gate{MetricP99, 10}, 10, false}, {Gate{MetricP99, 10}, 10.01, true}, {Gate{MetricP99, 10}, -30, false},
		{Gate{MetricErrors, 0}, 0, false}, {Gate{MetricErrors, 0}, 0.1, true}, {Gate{MetricErrors, 0}, -1, false},
	}
	for _, c := range cases {
		if got := c.g.trips(c.delta); got != c.want {
			t.Errorf("%v trips(%v) = %v, want %v", c.g, c.delta, got, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	gates, err := ParseGates("rps:-5%,p99:+10%")
	if err != nil {
		t.Fatal(err)
	}
	base := scaledRun(t, 1, 1)
	cases := []struct {
		name      string
		rps, p99  float64
		wantTrips int
	}{
		{"same", 1, 1, 0},
		{"within gates", 0.97, 1.05, 0},
		// 8 ok cells; each crosses both gates.
		{"regression", 0.85, 1.3, 16},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cmp, err := Compare(base, scaledRun(t, tc.rps, tc.p99), CompareOptions{Gates: gates})
			if err != nil {
				t.Fatal(err)
			}
			if len(cmp.Rows) != 8 || len(cmp.OnlyA)+len(cmp.OnlyB) != 0 {
				t.Errorf("rows %d, only A %v, only B %v; want 8 matched", len(cmp.Rows), cmp.OnlyA, cmp.OnlyB)
			}
			if len(cmp.Tripped) != tc.wantTrips {
				t.Errorf("tripped %d gates, want %d: %+v", len(cmp.Tripped), tc.wantTrips, cmp.Tripped)
			}
			var out bytes.Buffer
			if err := WriteCompare(&out, cmp); err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(out.String(), "REGRESSION"); got != tc.wantTrips {
				t.Errorf("printed %d regressions, want %d", got, tc.wantTrips)
			}
		})
	}
}

func TestCompareSignificance(t *testing.T) {
	t.Parallel()
	gates := []Gate{{MetricRPS, -1}}
	cmp, err := Compare(scaledRun(t, 1, 1), scaledRun(t, 0.98, 1), CompareOptions{Gates: gates})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range cmp.Tripped {
		if tr.Delta.Tested && tr.Delta.P >= 0.05 {
			t.Errorf("%s tripped on an insignificant change (p %.3f)", tr.Cell, tr.Delta.P)
		}
	}
	// A 2 % drop is well inside the repeated cells' noise (±50 on 1000):
	// only the two single-repetition cells, which have no test, trip.
	if len(cmp.Tripped) != 2 || cmp.Tripped[0].Delta.Tested || cmp.Tripped[1].Delta.Tested {
		t.Errorf("tripped = %+v, want only the two untested single-repetition cells", cmp.Tripped)
	}
}
