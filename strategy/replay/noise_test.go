package replay

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
)

// drifting is n seconds whose level climbs from 1500 to 2500 RPS with
// independent noise of cv on top.
func drifting(n int, cv float64, seed uint64) []results.Interval {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]results.Interval, n)
	for i := range out {
		level := 1500 + 1000*float64(i)/float64(n-1)
		out[i] = results.Interval{T: float64(i + 1), Requests: int64(level * (1 + cv*r.NormFloat64())),
			P99MS: 20 * level / 2000 * (1 + cv*r.NormFloat64())}
	}
	return out
}

func oneCell(series []results.Interval) []*cell {
	return []*cell{{rps: 2000, series: series}}
}

// TestWindowNoiseFallsForWhiteNoise: seconds of independent noise of 10 %
// average out, so windows of L seconds spread by 10 %/√L, measured at
// every length a phase holds three windows of, and beyond that the fit
// goes on falling as 1/√L.
func TestWindowNoiseFallsForWhiteNoise(t *testing.T) {
	t.Parallel()
	m, ok := measuredModel(oneCell(stationary(1200, 2000, 0.10, 3)))
	if !ok || m.longest() != 400 {
		t.Fatalf("model %v, longest window %d s; want windows up to 400 s", ok, m.longest())
	}
	for _, size := range []int{1, 4, 16} { // 75 windows or more: the estimate within 8 %
		want := 0.10 / math.Sqrt(float64(size))
		for k, got := range m.win[size] {
			if math.Abs(got/want-1) > 0.25 {
				t.Errorf("%d s windows: figure %d spreads %.4f, want %.4f (10 %%/√%d)", size, k, got, want, size)
			}
		}
	}
	rps, p99, source := m.at(1000)
	if want := 0.10 / math.Sqrt(1000); math.Abs(rps/want-1) > 0.3 || math.Abs(p99/want-1) > 0.3 {
		t.Errorf("at 1000 s: %.4f, %.4f; want about %.4f", rps, p99, want)
	}
	if !strings.Contains(source, "extrapolated from windows of 1–400 s") {
		t.Errorf("source %q does not say it was extrapolated", source)
	}
}

// TestWindowNoiseHoldsForDrift: a level that climbs by half its start
// across the phase spreads windows of every length about as much: the
// estimate must not fall as 1/√L, and the fit must carry the drift as a
// floor that longer measurements never get under.
func TestWindowNoiseHoldsForDrift(t *testing.T) {
	t.Parallel()
	m, ok := measuredModel(oneCell(drifting(1200, 0.05, 4)))
	if !ok {
		t.Fatal("no noise from 1200 s of samples")
	}
	one, sixteen := m.win[1][0], m.win[16][0]
	// The ramp alone spreads by (1000/2000)/√12 = 14.4 %.
	if sixteen < 0.8*one || sixteen < 0.12 {
		t.Errorf("RPS spreads %.3f in 1 s windows, %.3f in 16 s ones: a drift does not average out", one, sixteen)
	}
	if m.fit[0].Floor < 0.12 {
		t.Errorf("fit %+v: the drift is no floor", m.fit[0])
	}
	if rps, _, _ := m.at(1000); rps < 0.12 {
		t.Errorf("at 1000 s the drifting series is %.3f noisy; its drift alone is 0.144", rps)
	}
}

// testPlan screens for 2 s and gives the finals up to 45 s.
var testPlan = halving.Plan{Rounds: []halving.Round{{Warmup: 2 * time.Second, Duration: 2 * time.Second, Keep: 0.01},
	{Warmup: 5 * time.Second, Duration: 45 * time.Second, MinDuration: 20 * time.Second}}}

// TestNoisePerRound: each round is replayed at the noise of its own
// length, and says whether it was measured or assumed and at which
// length.
func TestNoisePerRound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		m                   *model
		screen, final       float64
		screenSays, finSays string
		measured            bool
	}{
		{"given at 30 s", givenModel(0.05, 30*time.Second), 0.05 * math.Sqrt(15), 0.05 * math.Sqrt(30.0/45),
			"assumed: 5.0 % given at 30 s, scaled as white noise by √(30 s/2 s)", "√(30 s/45 s)", false},
		{"given without a length", givenModel(0.05, 0), 0.05, 0,
			"given for every screening round whatever its length", "none: the finalists at the grid's own figures", false},
		{"measured", must(measuredModel(oneCell(stationary(90, 2000, 0.10, 5)))), 0.10 / math.Sqrt(2), 0.10 / math.Sqrt(45),
			"measured: 1 cells' 2 s windows", "measured: extrapolated from windows of 1–30 s", true},
	} {
		ns := tc.m.rounds(testPlan)
		if len(ns) != 2 || ns[0].LengthS != 2 || ns[1].LengthS != 45 {
			t.Fatalf("%s: %+v, want rounds at 2 s and 45 s", tc.name, ns)
		}
		for i, want := range []float64{tc.screen, tc.final} {
			tol := 1e-12
			if tc.measured {
				tol = 0.35 * want // 90 s of samples: 45 windows of 2 s, three of 30 s
			}
			if math.Abs(ns[i].RPS-want) > tol || ns[i].Measured != tc.measured {
				t.Errorf("%s: round %d %+v, want RPS %.4f", tc.name, i+1, ns[i], want)
			}
		}
		if !strings.Contains(ns[0].Source, tc.screenSays) || !strings.Contains(ns[1].Source, tc.finSays) {
			t.Errorf("%s: sources %q and %q; want %q and %q", tc.name, ns[0].Source, ns[1].Source, tc.screenSays, tc.finSays)
		}
	}
}

// TestFinalistsPerturbedAtTheirLength: a finalist's figures carry the
// noise of its own final's length (10 % at 30 s is 5 % at 120 s), and
// none when the noise was given without a length.
func TestFinalistsPerturbedAtTheirLength(t *testing.T) {
	t.Parallel()
	c := &cell{rc: results.RunCell{Reps: []results.Rep{{Record: results.Record{Status: results.StatusOK,
		Measurement: results.Measurement{RPS: 1000, LatencyMS: results.Latency{P99: 50}}}}}}}
	spread := func(rp *replayer, s float64) float64 {
		rng := rand.New(rand.NewPCG(9, 9))
		var xs []float64
		for range 4000 {
			xs = append(xs, rp.finalReps(rng, c, s)[0].RPS)
		}
		cv, _ := confidence.CV(xs)
		return cv
	}
	at := &replayer{model: givenModel(0.10, 30*time.Second)}
	if got := spread(at, 30); math.Abs(got-0.10) > 0.01 {
		t.Errorf("30 s final at 10 %%@30s: spread %.4f", got)
	}
	if got := spread(at, 120); math.Abs(got-0.05) > 0.005 {
		t.Errorf("120 s final at 10 %%@30s: spread %.4f, want 0.05", got)
	}
	if got := spread(&replayer{model: givenModel(0.10, 0)}, 30); got != 0 {
		t.Errorf("a noise without a length perturbed the finals by %.4f", got)
	}
	if c.rc.Reps[0].RPS != 1000 {
		t.Error("perturbing a final changed the grid's own record")
	}
}

func TestParseNoise(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][2]float64{"5%": {0.05, 0}, "0.05@30s": {0.05, 30}, "12 % @ 1m": {0.12, 60}} {
		cv, at, err := ParseNoise(text)
		if err != nil || cv != want[0] || at.Seconds() != want[1] {
			t.Errorf("%q: %v at %s, %v; want %v at %v s", text, cv, at, err, want[0], want[1])
		}
	}
	for _, text := range []string{"5%@", "5%@0s", "5%@500ms", "5%@x", "lots@30s", "5@30s"} {
		if _, _, err := ParseNoise(text); err == nil || !strings.Contains(err.Error(), "{noise_cv}") {
			t.Errorf("%q: %v, want bad input of {noise_cv}", text, err)
		}
	}
}

func must(m *model, ok bool) *model {
	if !ok {
		panic("no noise measured")
	}
	return m
}
