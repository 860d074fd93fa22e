package report

import "testing"

// limits are CPU reports whose best-RPS cells have these RPS, one per
// CPU limit given as cpus[i].
func limits(cpus, rps []float64) []*CPUReport {
	out := make([]*CPUReport, len(cpus))
	for i := range cpus {
		c := &Cell{RPS: Estimate{Mean: rps[i], N: 1}}
		c.ID = "best"
		out[i] = &CPUReport{CPUs: cpus[i], BestRPS: Pick{Cell: c}}
	}
	return out
}

// TestScaling pins the fit by hand. For x = 1, 2, 4 and y = 1000, 1800,
// 3200: x̄ = 7/3, ȳ = 2000, Sxx = 14/3, Sxy = 3400, Syy = 2 480 000, so
// slope = Sxy/Sxx = 5100/7, intercept = ȳ − slope·x̄ = 300 and
// R² = Sxy²/(Sxx·Syy) = 867/868. RPS per core 1000, 900, 800: efficiency
// 0.9 and 0.8 of the first, the lowest still near linear.
func TestScaling(t *testing.T) {
	t.Parallel()
	s := scaling(limits([]float64{1, 2, 4}, []float64{1000, 1800, 3200}))
	if !s.Fitted || !close9(s.Slope, 5100.0/7) || !close9(s.Intercept, 300) || !close9(s.R2, 867.0/868) || !s.NearLinear {
		t.Errorf("fit %+v, want slope 5100/7, intercept 300, R² 867/868, near linear", s)
	}
	wantPerCore, wantEff := []float64{1000, 900, 800}, []float64{1, 0.9, 0.8}
	for i, p := range s.Points {
		if !close9(p.RPSPerCore, wantPerCore[i]) || !close9(p.Efficiency, wantEff[i]) {
			t.Errorf("point %d: %+v, want %v RPS per core, efficiency %v", i, p, wantPerCore[i], wantEff[i])
		}
	}

	// 790 per core at 4 CPUs: efficiency 0.79 is below 0.8 although the
	// line still fits well.
	if s := scaling(limits([]float64{1, 2, 4}, []float64{1000, 1800, 3160})); s.NearLinear || s.R2 < 0.98 {
		t.Errorf("efficiency 0.79: near linear %v (R² %v), want false with R² ≥ 0.98", s.NearLinear, s.R2)
	}
	if s := scaling(limits([]float64{2}, []float64{1500})); s.Fitted || s.Slope != 0 || len(s.Points) != 1 ||
		s.Points[0].RPSPerCore != 750 || s.Points[0].Efficiency != 1 {
		t.Errorf("one limit: %+v, want one point (750 per core) and no fit", s)
	}
}
