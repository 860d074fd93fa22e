package report

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestMayBeat: figures measured once carry the 5 % band (±2.5 %). At two
// CPU limits, with best RPS 1000 and 2000 and best P99 10 ms and 20 ms:
//
//	A (1, 2): 1000 RPS, 10 ms | 2000 RPS, 20 ms — best everywhere
//	B (2, 2):  960 RPS, 10 ms | 1900 RPS, 20 ms
//	C (3, 2):  950 RPS, 10 ms | 1900 RPS, 20 ms
//	D (4, 2): 1000 RPS, 10.5 | 2000 RPS, 21 ms
//
// Throughput: B's best (984/1000 + 1947.5/2000)/2 = 0.97888 reaches A's
// worst (975/1000 + 1950/2000)/2 = 0.975; C's (973.75/1000 +
// 1947.5/2000)/2 = 0.97250 does not. Latency: D's best (10/10.2375 +
// 20/20.475)/2 = 0.97680 reaches A's worst 10/10.25 = 0.97561. A pair
// not measured everywhere beats nothing, and an unknown profile nothing.
func TestMayBeat(t *testing.T) {
	t.Parallel()
	figs := map[float64][2][2]float64{ // web mult → per CPU limit {rps, p99}
		1: {{1000, 10}, {2000, 20}}, 2: {{960, 10}, {1900, 20}}, 3: {{950, 10}, {1900, 20}}, 4: {{1000, 10.5}, {2000, 21}},
	}
	run := &results.Run{RunID: "maybeat"}
	for _, info := range fxGrid([]float64{1, 2}, []float64{1, 2, 3, 4, 5}, []float64{2}) {
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
	a, b, c, d, e := [2]float64{1, 2}, [2]float64{2, 2}, [2]float64{3, 2}, [2]float64{4, 2}, [2]float64{5, 2}
	cases := []struct {
		key  string
		x, y [2]float64
		want bool
	}{
		{"throughput", b, a, true},
		{"throughput", c, a, false},
		{"throughput", a, c, true},
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
	// Equivalent pairs may beat each other: B and A overlap in RPS at 1
	// CPU (984 ≥ 975) but not at 2 (1947.5 < 1950), so B is no tie of A,
	// yet B may beat A on the mean.
	if rep.Equivalent("throughput", b, a) {
		t.Error("B is equivalent to A everywhere; the case no longer shows what MayBeat adds")
	}
}
