package confidence

import (
	"math"
	"testing"
)

func TestTQuantile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.706}, {4, 2.776}, {9, 2.262}, {1000, 1.962}} {
		if got := TQuantile(c.df); math.Abs(got-c.want) > 0.001 {
			t.Errorf("TQuantile(%d) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
}

func TestMeanHalfWidth(t *testing.T) {
	t.Parallel()
	// 1, 2, 3, 4, 5: mean 3, sd √2.5, half = 2.776 × 1.5811 / √5.
	mean, half := MeanHalfWidth([]float64{1, 2, 3, 4, 5})
	if mean != 3 || math.Abs(half-2.776*math.Sqrt(2.5)/math.Sqrt(5)) > 0.001 {
		t.Errorf("MeanHalfWidth(1..5) = %v ± %v", mean, half)
	}
	if m, h := MeanHalfWidth([]float64{7}); m != 7 || !math.IsNaN(h) {
		t.Errorf("one value: %v ± %v, want 7 ± NaN", m, h)
	}
	if m, h := MeanHalfWidth(nil); !math.IsNaN(m) || !math.IsNaN(h) {
		t.Errorf("no value: %v ± %v, want NaN", m, h)
	}
	if _, h := MeanHalfWidth([]float64{4, 4, 4}); h != 0 {
		t.Errorf("constant values: half-width %v, want 0", h)
	}
}

func TestTrend(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		ys    []float64
		slope float64
		sig   bool
	}{
		{"flat", []float64{100, 100, 100, 100, 100}, 0, false},
		{"exact line", []float64{100, 101, 102, 103}, 1, true},
		{"noise around a level", []float64{100, 103, 98, 101, 99, 102, 100, 98}, -0.2262, false},
		{"rising through noise", []float64{100, 103, 104, 108, 107, 111, 113, 114}, 2, true},
		{"two points never", []float64{1, 5}, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			slope, sig := Trend(c.ys)
			if math.Abs(slope-c.slope) > 0.01 || sig != c.sig {
				t.Errorf("Trend = %.4f, %v; want %.4f, %v", slope, sig, c.slope, c.sig)
			}
		})
	}
}

func TestCV(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
		ok   bool
	}{
		{"sd 10 over mean 100", []float64{100, 110, 90}, 0.1, true},
		{"no spread", []float64{5, 5}, 0, true},
		{"one value", []float64{5}, 0, false},
		{"mean zero", []float64{0, 0}, 0, false},
		{"mean below zero", []float64{-1, -3}, 0, false},
	} {
		got, ok := CV(tc.xs)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: CV(%v) = %v, %v; want %v, %v", tc.name, tc.xs, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPooledNoise(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		noise, rps []float64
		want       float64
		ok         bool
	}{
		// √((1000·0.04² + 1000·0.03² + 1·1²)/2001) = √(3.5/2001)
		{"a starved cell weighs what it served", []float64{0.04, 0.03, 1}, []float64{1000, 1000, 1}, 0.04182254699658259, true},
		{"equal weights: the root mean square", []float64{0.3, 0.4}, []float64{5, 5}, 0.3535533905932738, true},
		{"no requests, no weight", []float64{0.04, 1}, []float64{10, 0}, 0.04, true},
		{"nothing served", []float64{0.5}, []float64{0}, 0, false},
		{"nothing", nil, nil, 0, false},
	} {
		got, ok := PooledNoise(tc.noise, tc.rps)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: PooledNoise = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestShift(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ys   []float64
		at   int
		step bool
	}{
		{"a step after three", []float64{1000, 1010, 990, 650, 640}, 3, true},
		{"a step after two, noisy", []float64{1000, 970, 700, 720, 690, 710}, 2, true},
		{"flat noise", []float64{1000, 1013, 992, 1019, 984, 1004, 989, 1012}, 0, false},
		{"one outlier at the end is no step", []float64{1000, 1010, 990, 1005, 600}, 0, false},
		{"three points are too few", []float64{1000, 1000, 500}, 0, false},
		{"flat without scatter", []float64{5, 5, 5, 5}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			at, diff, _, step := Shift(tc.ys)
			if step != tc.step || step && at != tc.at {
				t.Errorf("step %v at %d (diff %.1f), want %v at %d", step, at, diff, tc.step, tc.at)
			}
		})
	}
}

// TestFitLengthNoise: noises that fall as 1/√L fit as white noise alone,
// flat ones as a floor alone, and a mix gives back both parts.
func TestFitLengthNoise(t *testing.T) {
	t.Parallel()
	lengths := []float64{1, 2, 4, 8, 16}
	weights := []float64{16, 8, 4, 2, 1}
	for _, tc := range []struct {
		name         string
		white, floor float64
	}{{"white", 0.2, 0}, {"floor", 0, 0.05}, {"both", 0.1, 0.03}} {
		cvs := make([]float64, len(lengths))
		for i, l := range lengths {
			cvs[i] = math.Sqrt(tc.white*tc.white/l + tc.floor*tc.floor)
		}
		n, ok := FitLengthNoise(lengths, cvs, weights)
		if !ok || math.Abs(n.White-tc.white) > 1e-9 || math.Abs(n.Floor-tc.floor) > 1e-9 {
			t.Errorf("%s: fit %+v, %v; want white %v, floor %v", tc.name, n, ok, tc.white, tc.floor)
		}
		if got, want := n.At(100), math.Sqrt(tc.white*tc.white/100+tc.floor*tc.floor); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: at 100 s %v, want %v", tc.name, got, want)
		}
	}
	// Noise that grows with length (a level that wanders) is all floor,
	// at the weighted mean of the squares; one length fits nothing.
	n, ok := FitLengthNoise([]float64{1, 10}, []float64{0.1, 0.2}, []float64{1, 1})
	if !ok || n.White != 0 || math.Abs(n.Floor-math.Sqrt((0.01+0.04)/2)) > 1e-12 {
		t.Errorf("rising noise: %+v, %v", n, ok)
	}
	if _, ok := FitLengthNoise([]float64{5, 5}, []float64{0.1, 0.1}, []float64{1, 1}); ok {
		t.Error("one length fitted a curve")
	}
}
