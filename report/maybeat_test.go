package report

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestMayBeat: figures measured once carry the 5 % band (±2.5 %). At two
// CPU limits:
//
//	A (1, 2): 1000 RPS, 10 ms   | 2000 RPS, 20 ms
//	B (2, 2):  960 RPS, 10 ms   | 1900 RPS, 20 ms
//	C (3, 2):  950 RPS, 10 ms   | 1900 RPS, 20 ms
//	D (4, 2): 1000 RPS, 10.5 ms | 2000 RPS, 21 ms
//	F (6, 2): 1060 RPS, 10 ms   | 1900 RPS, 20 ms — trades places with A
//
// Throughput (RPS over the limit's best, 1060 and 2000): B is 0.0377 and
// 0.05 below A; each limit's tolerance (B's RPS high, A's low) is 0.0462
// and 0.0488, in quadrature 0.0672 < 0.0877, so B cannot beat A, though
// added linearly (0.0950) they would have kept it. F is 0.0566 above A at
// 1 CPU and 0.05 below at 2: its sum is above A's whatever the noise, and
// A's sum within noise of F's. C is below A everywhere, A above C.
// Latency: D is 4.8 % slower than A at both limits, 0.0952 in all against
// 0.0690 in quadrature, but its P99 intervals overlap A's at both
// (10.2375 ≤ 10.25, 20.475 ≤ 20.5): the report calls D equivalent to A,
// and an equivalent pair may always beat. A pair not measured everywhere
// beats nothing, and an unknown profile nothing.
func TestMayBeat(t *testing.T) {
	t.Parallel()
	figs := map[float64][2][2]float64{ // web mult → per CPU limit {rps, p99}
		1: {{1000, 10}, {2000, 20}}, 2: {{960, 10}, {1900, 20}}, 3: {{950, 10}, {1900, 20}}, 4: {{1000, 10.5}, {2000, 21}},
		6: {{1060, 10}, {1900, 20}},
	}
	run := &results.Run{RunID: "maybeat"}
	for _, info := range fxGrid([]float64{1, 2}, []float64{1, 2, 3, 4, 5, 6}, []float64{2}) {
		rc := results.RunCell{CellInfo: info}
		if f, ok := figs[info.WebMult]; ok {
			k := int(info.CPUs) - 1
			rc.Reps = []results.Rep{okRep(f[k][0], f[k][1], 0)}
		} else if info.CPUs == 1 { // web mult 5: measured at one limit only
			rc.Reps = []results.Rep{okRep(5000, 1, 0)}
		}
		run.Cells = append(run.Cells, rc)
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, b, c, d, e, f := [2]float64{1, 2}, [2]float64{2, 2}, [2]float64{3, 2}, [2]float64{4, 2}, [2]float64{5, 2}, [2]float64{6, 2}
	cases := []struct {
		key  string
		x, y [2]float64
		want bool
	}{
		{"throughput", b, a, false},
		{"throughput", c, a, false},
		{"throughput", a, c, true},
		{"throughput", f, a, true},
		{"throughput", a, f, true},
		{"latency", d, a, true},
		{"latency", a, a, true},
		{"throughput", e, a, false},
		{"throughput", a, e, false},
		{"fastest", a, b, false},
	}
	for _, tc := range cases {
		if got := rep.MayBeat(tc.key, tc.x, tc.y); got != tc.want {
			t.Errorf("%s: MayBeat(%v, %v) = %v, want %v", tc.key, tc.x, tc.y, got, tc.want)
		}
	}
	// Neither B nor F is a tie of A (B is apart at 2 CPUs, F at 1), so
	// their verdicts come from the sums; D is, so its comes from the tie.
	if rep.Equivalent("throughput", b, a) || rep.Equivalent("throughput", f, a) || !rep.Equivalent("latency", d, a) {
		t.Error("the cases no longer show what they are for: B and F no ties of A, D one")
	}
}
