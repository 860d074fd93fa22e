package report

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// uslPoints are noiseless points of the USL with params at ns.
func uslPoints(p uslParams, ns []float64) []float64 {
	xs := make([]float64, len(ns))
	for i, n := range ns {
		xs[i] = p.at(n)
	}
	return xs
}

// within reports whether got lies within rel (relative) of want.
func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestFitUSLRecoversKnownParameters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    uslParams
		ns   []float64
		face uslFace
	}{
		{"contention and coherency", uslParams{1000, 0.05, 0.002}, []float64{1, 2, 4, 8, 16}, uslFace{true, true}},
		{"three points, three parameters", uslParams{800, 0.03, 0.004}, []float64{2, 4, 6}, uslFace{true, true}},
		{"coherency only", uslParams{500, 0, 0.01}, []float64{1, 2, 3, 4, 6, 8}, uslFace{false, true}},
		{"contention only", uslParams{1000, 0.05, 0}, []float64{1, 2, 4, 8, 16}, uslFace{true, false}},
		{"linear", uslParams{250, 0, 0}, []float64{0.5, 1, 2}, uslFace{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sol, err := fitUSL(tc.ns, uslPoints(tc.p, tc.ns))
			if err != nil {
				t.Fatal(err)
			}
			if sol.Face != tc.face || !within(sol.Lambda, tc.p.Lambda, 1e-6) ||
				!within(sol.Sigma, tc.p.Sigma, 1e-5) || !within(sol.Kappa, tc.p.Kappa, 1e-5) {
				t.Errorf("fit %+v on face %+v, want %+v on face %+v", sol.uslParams, sol.Face, tc.p, tc.face)
			}
			// A parameter the constraint holds is exactly 0, not 1e-12.
			if (!tc.face.sigma && sol.Sigma != 0) || (!tc.face.kappa && sol.Kappa != 0) {
				t.Errorf("σ %g, κ %g: a zero parameter must come out exactly 0", sol.Sigma, sol.Kappa)
			}
		})
	}
}

// studyRun writes the study's published rows of the given CPU limits as
// a run and builds its report with predictions at predict.
func studyRun(t *testing.T, cpus []float64, predict ...float64) *Report {
	t.Helper()
	var cells []fxCell
	for _, c := range gopCells(t) {
		if slices.Contains(cpus, c.info.CPUs) {
			cells = append(cells, c)
		}
	}
	spec := map[string]any{}
	for k, v := range gopSpec {
		spec[k] = v
	}
	spec["cpus"] = cpus
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, "study", spec, cells)
	return buildPredicting(t, dir, predict...)
}

// buildPredicting builds the report of the run in dir with predictions
// at predict.
func buildPredicting(t *testing.T, dir string, predict ...float64) *Report {
	t.Helper()
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.PredictCPUs = predict
	rep, err := Build(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestUSLPredictsStudyEightCPUs fits the study's 2, 4 and 6 CPU rows and
// checks the prediction at 8 against the study's measured best there.
func TestUSLPredictsStudyEightCPUs(t *testing.T) {
	t.Parallel()
	const measured8 = 5684.44 // cpu_8__web_12__db_30, the study's best at 8 CPUs
	u := studyRun(t, []float64{2, 4, 6}, 8).USL
	if u == nil {
		t.Fatal("no USL fit on three CPU limits")
	}
	p := u.Predictions[0]
	t.Logf("σ %.6g κ %.6g λ %.6g N* %.4g R² %.6f; at 8: %.0f [%.0f, %.0f] (%s), measured %.0f (%+.1f %%)",
		u.Sigma, u.Kappa, u.Lambda, u.PeakCPUs, u.R2, p.Value, p.Lo, p.Hi, u.Interval, measured8,
		100*(p.Value-measured8)/measured8)
	if !within(p.Value, measured8, 0.10) {
		t.Errorf("prediction at 8 CPUs %.0f is not within 10 %% of the measured %.0f", p.Value, measured8)
	}
	if !p.Extrapolation || p.Lo > p.Value || p.Hi < p.Value {
		t.Errorf("prediction %+v: want an extrapolation with an interval around it", p)
	}
}

func TestUSLPredictionWarningsAndCells(t *testing.T) {
	t.Parallel()
	u := studyRun(t, []float64{2, 4, 6}, 3, 12, 16, 20).USL
	// N* = √((1−σ)/κ) ≈ 16.4 on these rows; "far" is beyond 2 × 6 CPUs.
	if u.PeakCPUs < 16 || u.PeakCPUs > 20 {
		t.Fatalf("peak %.1f CPUs; the cases below assume it lies between 16 and 20", u.PeakCPUs)
	}
	for i, want := range []struct {
		extrapolation    bool
		farAway, pastTop bool
	}{{false, false, false}, {true, false, false}, {true, true, false}, {true, true, true}} {
		p := u.Predictions[i]
		text := strings.Join(p.Warnings, "; ")
		if p.Extrapolation != want.extrapolation || strings.Contains(text, "2× the largest") != want.farAway ||
			strings.Contains(text, "past the predicted peak") != want.pastTop {
			t.Errorf("at %g CPUs: extrapolation %v, warnings %q; want %+v", p.CPUs, p.Extrapolation, text, want)
		}
	}
	// At 3 CPUs the throughput-first web multiplier 1.5 gives 4.5 web
	// threads: half to even makes that 4, as the study's harness did.
	got := u.Predictions[0].Settings
	i := slices.IndexFunc(got, func(c ProfileCell) bool { return c.Profile == "throughput" })
	if i < 0 || got[i].WebThreads != 4 || !strings.HasPrefix(got[i].Cell, "cpu_3__web_4__db_") {
		t.Errorf("settings at 3 CPUs %+v: want the throughput cell at web 4", got)
	}
}

// TestUSLNoPeakWithoutCoherency: κ = 0 gives a null peak_cpus.
func TestUSLNoPeakWithoutCoherency(t *testing.T) {
	t.Parallel()
	ns := []float64{1, 2, 4, 8}
	u, err := fitFigure("best RPS", ns, singles(uslPoints(uslParams{900, 0.04, 0}, ns), 0.05), []float64{32})
	if err != nil {
		t.Fatal(err)
	}
	if u.Kappa != 0 || !math.IsNaN(u.PeakCPUs) || !slices.Equal(u.AtZero, []string{"kappa"}) {
		t.Errorf("κ %g, peak %g, at zero %v; want κ 0 and no peak", u.Kappa, u.PeakCPUs, u.AtZero)
	}
	if w := u.Predictions[0].Warnings; len(w) != 1 || !strings.Contains(w[0], "2× the largest") {
		t.Errorf("warnings at 32 CPUs %q: want only the far-out one (no peak to pass)", w)
	}
	b, err := json.Marshal(uslDoc(u, false))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"peak_cpus":null`)) || !bytes.Contains(b, []byte(`"kappa":0,`)) {
		t.Errorf("usl document %s: want kappa 0 and peak_cpus null", b)
	}
}

// TestUSLNeedsThreeCPULimits: two CPU limits give no usl object, and a
// report asked to predict says why.
func TestUSLNeedsThreeCPULimits(t *testing.T) {
	t.Parallel()
	rep := studyRun(t, []float64{2, 4}, 8)
	if rep.USL != nil || !strings.Contains(rep.USLNote, "2 CPU limit(s)") {
		t.Fatalf("USL %+v, note %q: want no fit and the reason", rep.USL, rep.USLNote)
	}
	var js, md, term bytes.Buffer
	if err := WriteResultsJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, rep, nil, ChartDir); err != nil {
		t.Fatal(err)
	}
	if err := WriteTerminalSummary(&term, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), `"usl"`) {
		t.Error("results.json has a usl object for two CPU limits")
	}
	for name, out := range map[string]string{"report.md": md.String(), "terminal": term.String()} {
		if !strings.Contains(out, "no USL fit: the run has 2 CPU limit(s)") {
			t.Errorf("%s does not say why there is no prediction", name)
		}
	}
}

// TestUSLBand checks the delta-method intervals of each source against
// identities that hold whatever the data.
func TestUSLBand(t *testing.T) {
	t.Parallel()
	exact := uslParams{800, 0.03, 0.004}
	t.Run("noise band passes each point's own band through", func(t *testing.T) {
		// Three points, three free parameters: the curve runs through
		// every point, so at a measured N the interval is that point's.
		ns := []float64{2, 4, 6}
		est := singles(uslPoints(exact, ns), 0.05)
		band := mustBand(t, ns, est)
		if band.Method != IntervalNoiseBand {
			t.Fatalf("method %q, want %q", band.Method, IntervalNoiseBand)
		}
		for i, n := range ns {
			lo, hi := band.at(n)
			if !within(hi-lo, est[i].Hi-est[i].Lo, 1e-6) {
				t.Errorf("at %g CPUs width %g, want the point's own %g", n, hi-lo, est[i].Hi-est[i].Lo)
			}
		}
	})
	t.Run("residuals: the leverages sum to the free parameters", func(t *testing.T) {
		ns := []float64{1, 2, 3, 4, 6, 8}
		xs := uslPoints(exact, ns)
		for i := range xs {
			xs[i] *= 1 + 0.02*float64(i%3-1) // −2 %, 0, +2 %: noise the fit cannot follow
		}
		// A zero noise band leaves the residuals alone to set the width.
		band := mustBand(t, ns, singles(xs, 0))
		if band.Method != IntervalResiduals {
			t.Fatalf("method %q, want %q", band.Method, IntervalResiduals)
		}
		df := len(ns) - band.sol.Face.size()
		s2 := band.sol.SSE / float64(df)
		sum := 0.0
		for _, n := range ns {
			lo, hi := band.at(n)
			half := (hi - lo) / 2 / confidence.TQuantile(df)
			sum += half * half / s2
		}
		if !within(sum, float64(band.sol.Face.size()), 1e-6) {
			t.Errorf("sum of leverages %g, want %d (the trace of the hat matrix)", sum, band.sol.Face.size())
		}
	})
	t.Run("residuals never narrower than the noise band", func(t *testing.T) {
		// Points on a line: no residual at all, yet each was measured
		// once, so the interval at a point is at least the sandwich's.
		ns := []float64{1, 2, 3, 4}
		est := singles(uslPoints(uslParams{100, 0, 0}, ns), 0.05)
		band := mustBand(t, ns, est)
		lo, hi := band.at(2)
		if band.Method != IntervalResiduals || band.sol.SSE > 1e-12 || hi-lo < 1 {
			t.Errorf("method %q, SSE %g, interval at 2 CPUs [%g, %g]: want residuals, no residual, "+
				"and a width of the noise band's order", band.Method, band.sol.SSE, lo, hi)
		}
	})
	t.Run("repeats win over residuals", func(t *testing.T) {
		ns := []float64{1, 2, 4, 8}
		est := singles(uslPoints(exact, ns), 0.05)
		x := est[2].Mean
		est[2] = estimate([]float64{0.98 * x, x, 1.02 * x}, 0.05)
		band := mustBand(t, ns, est)
		lo, hi := band.at(4)
		if band.Method != IntervalRepeats || !(lo < x && x < hi) {
			t.Errorf("method %q, interval at 4 CPUs [%g, %g] around %g; want repeats", band.Method, lo, hi, x)
		}
	})
}

func singles(xs []float64, noise float64) []Estimate {
	est := make([]Estimate, len(xs))
	for i, x := range xs {
		est[i] = estimate([]float64{x}, noise)
	}
	return est
}

func mustBand(t *testing.T, ns []float64, est []Estimate) uslBand {
	t.Helper()
	xs := make([]float64, len(est))
	for i, e := range est {
		xs[i] = e.Mean
	}
	sol, err := fitUSL(ns, xs)
	if err != nil {
		t.Fatal(err)
	}
	band, err := newUSLBand(sol, ns, est)
	if err != nil {
		t.Fatal(err)
	}
	return band
}

// TestUSLPredictionGolden pins the terminal summary of the study's run
// with predictions at 12, 16 and 32 CPUs.
func TestUSLPredictionGolden(t *testing.T) {
	t.Parallel()
	rep := buildPredicting(t, filepath.Join("testdata", "gop"), 12, 16, 32)
	var b bytes.Buffer
	if err := WriteTerminalSummary(&b, rep); err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, filepath.Join("testdata", "golden", "gop-predict.txt"), b.Bytes())
}

// TestUSLSafeLimitFit: cells that searched their safe limit at three CPU
// limits get a second fit, under usl.safe_limit with levels, and a note
// when a limit is only a lower bound.
func TestUSLSafeLimitFit(t *testing.T) {
	t.Parallel()
	grid := fxGrid([]float64{1, 2, 4}, []float64{1, 2}, []float64{2})
	truth := uslParams{40, 0.05, 0.01}
	cells := make([]fxCell, 0, len(grid))
	for _, info := range grid {
		level := int(math.Round(truth.at(info.CPUs) * info.WebMult / 2))
		failsAt := level + 2
		if info.CPUs == 4 && info.WebMult == 2 {
			failsAt = 0 // no level failed: a lower bound
		}
		cells = append(cells, fxCell{info: info,
			reps: []results.Rep{okRep(100*info.CPUs, 10, 0, limited(level, failsAt, "target-cpu"))}})
	}
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, "limits3", limitsSpec, cells)
	rep := buildPredicting(t, dir, 6)
	u := rep.LimitUSL
	if u == nil || u.Figure != "safe limit (vus)" || len(u.Points) != 3 || len(u.Notes) != 1 {
		t.Fatalf("safe-limit fit %+v: want three points and the lower-bound note", u)
	}
	if got, want := u.Points[2].Measured, float64(int(math.Round(truth.at(4)))); got != want {
		t.Errorf("point at 4 CPUs %g, want the best safe limit %g", got, want)
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		USL struct {
			SafeLimit struct {
				Predictions []map[string]any `json:"predictions"`
			} `json:"safe_limit"`
		} `json:"usl"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.USL.SafeLimit.Predictions
	if len(p) != 1 || p[0]["level"] == nil || p[0]["rps"] != nil {
		t.Errorf("safe-limit predictions %v: want one with a level and no rps", p)
	}
}

// TestPredictionTableWithoutSettings: predictions that carry no cell
// settings get no cell columns, even when profiles were found.
func TestPredictionTableWithoutSettings(t *testing.T) {
	t.Parallel()
	rep := &Report{Profiles: []Profile{{Key: "throughput", Name: "throughput-first", Found: true}}}
	u := &USL{Figure: "RPS", Predictions: []Prediction{{CPUs: 3, Value: 1234, Lo: math.NaN(), Hi: math.NaN(), Extrapolation: true}}}
	tb := predictionTable(rep, u)
	if want := []string{"CPU", "predicted", "95 % interval", "kind", "warnings"}; !slices.Equal(tb.Header, want) {
		t.Errorf("header %q, want %q", tb.Header, want)
	}
	if want := []string{"3", "1234", "-", "extrapolation", "none"}; len(tb.Rows) != 1 || !slices.Equal(tb.Rows[0], want) {
		t.Errorf("rows %q, want [%q]", tb.Rows, want)
	}
}

// TestUSLGradMatchesFiniteDifferences: grad is X's derivative in λ, σ
// and κ; the fit's steps and the prediction intervals rest on it.
func TestUSLGradMatchesFiniteDifferences(t *testing.T) {
	t.Parallel()
	for _, p := range []uslParams{{Lambda: 900, Sigma: 0.05, Kappa: 0.002}, {Lambda: 120, Sigma: 0.3, Kappa: 0.04}} {
		for _, n := range []float64{1, 2.5, 8} {
			g := p.grad(n)
			for i := range 3 {
				h := 1e-6 * max(1, math.Abs([]float64{p.Lambda, p.Sigma, p.Kappa}[i]))
				up, down := p, p
				switch i {
				case 0:
					up.Lambda += h
					down.Lambda -= h
				case 1:
					up.Sigma += h
					down.Sigma -= h
				case 2:
					up.Kappa += h
					down.Kappa -= h
				}
				want := (up.at(n) - down.at(n)) / (2 * h)
				if math.Abs(g[i]-want) > 1e-6*max(1, math.Abs(want)) {
					t.Errorf("%+v at n=%g: ∂X/∂param %d = %g, finite difference %g", p, n, i, g[i], want)
				}
			}
		}
	}
}

// TestIntervalTextSaysWhereTheBandComesFrom: the USL note names a measured
// band as measured, an assumed one as assumed, rounded.
func TestIntervalTextSaysWhereTheBandComesFrom(t *testing.T) {
	u := &USL{Interval: IntervalResiduals, DF: 2}
	if got := intervalText(u, Noise{Measured: true, RPS: 0.37341820596756925}); !strings.Contains(got, "never narrower than the run's measured noise band (37.3 %)") {
		t.Errorf("measured: %q", got)
	}
	u.Interval = IntervalNoiseBand
	if got := intervalText(u, Noise{RPS: 0.05}); !strings.Contains(got, "carry the assumed noise band (5 %)") {
		t.Errorf("assumed: %q", got)
	}
}
