package report

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// The p-values below do not come from gonum, which welch uses: where
// Welch's degrees of freedom ν come out whole the two-sided p of Student's
// t has a closed form,
//
//	ν = 1 (Cauchy): p = 1 − 2·atan(|t|)/π
//	ν = 2:          p = 1 − |t|/√(2 + t²)
//
// and for other ν tTwoSided integrates the t density numerically. With
// sa = va/na and sb = vb/nb (sample variances over sizes):
//
//	t = (ma − mb)/√(sa + sb),  ν = (sa + sb)² / (sa²/(na−1) + sb²/(nb−1)).

// tTwoSided is 1 − 2∫₀^|t| f(x) dx for Student's t density f with nu
// degrees of freedom, by Simpson's rule (error far below 1e-9 here).
func tTwoSided(t, nu float64) float64 {
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(nu*math.Pi)
	f := func(x float64) float64 { return c * math.Pow(1+x*x/nu, -(nu+1)/2) }
	const n = 20000
	h := math.Abs(t) / n
	sum := f(0) + f(math.Abs(t))
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		sum += w * f(float64(i)*h)
	}
	return 1 - 2*sum*h/3
}

func TestTTwoSidedMatchesClosedForms(t *testing.T) {
	t.Parallel()
	if got, want := tTwoSided(4, 1), 1-2*math.Atan(4)/math.Pi; math.Abs(got-want) > 1e-9 {
		t.Errorf("ν=1: %v, want %v", got, want)
	}
	if got, want := tTwoSided(2*math.Sqrt2, 2), 1-2/math.Sqrt(5); math.Abs(got-want) > 1e-9 {
		t.Errorf("ν=2: %v, want %v", got, want)
	}
}

func TestWelch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		a, b   []float64
		p      float64
		tested bool
	}{
		{"one value in a", []float64{1}, []float64{1, 2}, 0, false},
		{"one value in b", []float64{1, 2}, []float64{3}, 0, false},
		// sa = sb = 4: ν = 64/(16+16) = 2, t = −8/√8 = −2√2.
		{"equal spread, ν=2", []float64{1, 5}, []float64{9, 13}, 1 - 2/math.Sqrt(5), true},
		{"equal spread swapped", []float64{9, 13}, []float64{1, 5}, 1 - 2/math.Sqrt(5), true},
		// sa = 1, sb = 0: ν = 1/(1/1) = 1, t = (2−6)/1 = −4.
		{"b without spread, ν=1", []float64{1, 3}, []float64{6, 6}, 1 - 2*math.Atan(4)/math.Pi, true},
		// na = 3: sa = 1/3, sb = 0: ν = (1/9)/((1/9)/2) = 2, t = −3/√(1/3) = −3√3.
		{"three against two, ν=2", []float64{1, 2, 3}, []float64{5, 5}, 1 - 3*math.Sqrt(3)/math.Sqrt(29), true},
		{"two against three, ν=2", []float64{5, 5}, []float64{1, 2, 3}, 1 - 3*math.Sqrt(3)/math.Sqrt(29), true},
		// sa = 1, sb = 16/3: ν = (19/3)²/(1 + (16/3)²/2) = 361/137, t = −2/√(19/3).
		{"unequal spread, ν=361/137", []float64{1, 3}, []float64{0, 4, 8}, tTwoSided(2/math.Sqrt(19.0/3), 361.0/137), true},
		{"no spread, same means", []float64{2, 2}, []float64{2, 2}, 1, true},
		{"no spread, different means", []float64{2, 2}, []float64{3, 3}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, tested := welch(tc.a, tc.b)
			if tested != tc.tested || math.Abs(p-tc.p) > 1e-9 {
				t.Errorf("welch = %.12f, %v; want %.12f, %v", p, tested, tc.p, tc.tested)
			}
		})
	}
}

// compareRun is a run of one cell (1 CPU, 2 web threads, pool 4) with one
// repetition per (rps, p99, error rate) triple.
func compareRun(id string, reps ...[3]float64) *results.Run {
	cell := results.RunCell{CellInfo: results.CellInfo{ID: "cpu_1__web_2__db_4", CPUs: 1, WebThreads: 2, DBPool: 4}}
	for _, r := range reps {
		cell.Reps = append(cell.Reps, okRep(r[0], r[1], r[2]))
	}
	return &results.Run{RunID: id, Service: "app", Cells: []results.RunCell{cell}}
}

// TestCompareDeltas pins each metric's change (in % of A, errors in
// percentage points) and its p-value on a cell with two repetitions a run.
func TestCompareDeltas(t *testing.T) {
	t.Parallel()
	a := compareRun("a", [3]float64{1000, 10, 0.01}, [3]float64{1100, 12, 0.03})
	b := compareRun("b", [3]float64{900, 15, 0.02}, [3]float64{950, 15, 0.04})
	cmp, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Rows) != 1 {
		t.Fatalf("rows %+v, want one", cmp.Rows)
	}
	want := []Delta{
		// RPS 1050 → 925: sa = 5000/2, sb = 1250/2: t = 125/√3125 = √5, ν = 3125²/(2500² + 625²) = 25/17.
		{Metric: MetricRPS, A: 1050, B: 925, Pct: 100 * -125.0 / 1050, P: tTwoSided(math.Sqrt(5), 25.0/17), Tested: true},
		// P99 11 → 15: sa = 1, sb = 0: ν = 1, t = −4.
		{Metric: MetricP99, A: 11, B: 15, Pct: 100 * 4.0 / 11, P: 1 - 2*math.Atan(4)/math.Pi, Tested: true},
		// errors 2 % → 3 % (+1 pp): sa = sb = 1: ν = 2, t = −1/√2.
		{Metric: MetricErrors, A: 2, B: 3, Pct: 1, P: 1 - 1/math.Sqrt(5), Tested: true},
	}
	for i, d := range cmp.Rows[0].Deltas {
		w := want[i]
		if d.Metric != w.Metric || d.Tested != w.Tested || !close9(d.A, w.A) || !close9(d.B, w.B) ||
			!close9(d.Pct, w.Pct) || !close9(d.P, w.P) {
			t.Errorf("delta %d = %+v, want %+v", i, d, w)
		}
	}
}

func close9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestCompareDeltaFromZero: a change from 0 has no percentage (not ±Inf),
// errors still count in points, and single repetitions are not tested.
func TestCompareDeltaFromZero(t *testing.T) {
	t.Parallel()
	a := compareRun("a", [3]float64{1000, 0, 0})
	b := compareRun("b", [3]float64{1000, 5, 0.5})
	cmp, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Delta{
		{Metric: MetricRPS, A: 1000, B: 1000},
		{Metric: MetricP99, A: 0, B: 5},
		{Metric: MetricErrors, A: 0, B: 50, Pct: 50},
	}
	for i, d := range cmp.Rows[0].Deltas {
		if d != want[i] {
			t.Errorf("delta %d = %+v, want %+v", i, d, want[i])
		}
	}
}

func TestCompareAlpha(t *testing.T) {
	t.Parallel()
	a := compareRun("a", [3]float64{1000, 10, 0.01}, [3]float64{1100, 12, 0.03})
	b := compareRun("b", [3]float64{900, 15, 0.02}, [3]float64{950, 15, 0.04})
	for _, alpha := range []float64{-0.01, 1} {
		if _, err := Compare(a, b, CompareOptions{Alpha: alpha}); !errors.Is(err, sweep.ErrBadInput) {
			t.Errorf("alpha %v: err %v, want bad input", alpha, err)
		}
	}
	// A gate trips on a change whose p is below alpha, not at it: with
	// alpha set to the RPS change's own p the gate holds.
	gates := []Gate{{MetricRPS, -5}}
	cmp, err := Compare(a, b, CompareOptions{Gates: gates, Alpha: 0.5})
	if err != nil || len(cmp.Tripped) != 1 {
		t.Fatalf("alpha 0.5: %v, tripped %+v; want the −11.9 %% RPS change (p 0.199) to trip", err, cmp)
	}
	p := cmp.Rows[0].Deltas[0].P
	if cmp, err := Compare(a, b, CompareOptions{Gates: gates, Alpha: p}); err != nil || len(cmp.Tripped) != 0 {
		t.Errorf("alpha = p = %v: %v, tripped %+v; want none", p, err, cmp.Tripped)
	}
}

// TestWriteCompareRow pins the printed row: means, changes and both
// p-values (RPS, P99) to three places.
func TestWriteCompareRow(t *testing.T) {
	t.Parallel()
	a := compareRun("a", [3]float64{1000, 10, 0.01}, [3]float64{1100, 12, 0.03})
	b := compareRun("b", [3]float64{900, 15, 0.02}, [3]float64{950, 15, 0.04})
	cmp, err := Compare(a, b, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteCompare(&out, cmp); err != nil {
		t.Fatal(err)
	}
	pRPS, pP99 := tTwoSided(math.Sqrt(5), 25.0/17), 1-2*math.Atan(4)/math.Pi
	for _, want := range []string{"1050", "925", "-11.9 %", "11.00", "15.00", "+36.4 %", "+1.00",
		fmt.Sprintf("%.3f, %.3f", pRPS, pP99)} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	single, err := Compare(compareRun("a", [3]float64{1000, 10, 0}), compareRun("b", [3]float64{990, 10, 0}), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := WriteCompare(&out, single); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "-, -") {
		t.Errorf("single repetitions: output lacks untested p-values '-, -':\n%s", out.String())
	}
}
