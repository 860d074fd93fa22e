package replay

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestStudyNoiseless replays the study's table once, at its own figures,
// and checks the price against the arithmetic of the plan: 80 cells of
// 4 s + 5 s + 5 s, then the finalists at 4 s + 10 s + 60 s, over 80 cells
// of 4 s + 30 s + 300 s.
func TestStudyNoiseless(t *testing.T) {
	t.Parallel()
	res, err := Replay(studyRun(t, 4*time.Second), Options{AssumedSteady: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Replays != 1 || len(res.Rounds) != 2 || res.Rounds[0].Measured != 80 {
		t.Fatalf("rounds %+v", res.Rounds)
	}
	finals := res.Rounds[1].Measured
	if want := (80*14 + float64(finals)*74) / (80 * 334); math.Abs(res.Fraction-want) > 1e-9 || res.GridS != 80*334 {
		t.Errorf("fraction %.4f of %.0f s, want %.4f of %d s", res.Fraction, res.GridS, want, 80*334)
	}
	if finals != len(res.Rounds[0].Kept) {
		t.Errorf("%d finalists for %d survivors", finals, len(res.Rounds[0].Kept))
	}
	for _, key := range []string{"latency", "balanced", "throughput"} {
		if res.Agreement[key] != 1 {
			t.Errorf("%s: agreement %v at the grid's own figures", key, res.Agreement[key])
		}
	}
	if res.SteadyAssumed != finals || res.SteadyFromSamples != 0 {
		t.Errorf("steady from samples %d, assumed %d; the table has no series", res.SteadyFromSamples, res.SteadyAssumed)
	}
	t.Logf("noiseless: %d of 80 cells survive the 5 s round, %.1f %% of the grid's time", finals, 100*res.Fraction)
}

func TestReplayIsDeterministic(t *testing.T) {
	t.Parallel()
	run := studyRun(t, 4*time.Second)
	opts := Options{Seeds: 20, Seed: 7, NoiseCV: 0.08, AssumedSteady: time.Minute}
	a, err := Replay(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Replay(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two replays with the same seeds differ")
	}
	opts.Seed = 8
	c, err := Replay(run, opts)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Rounds, c.Rounds) && a.Fraction == c.Fraction {
		t.Error("another seed gave the very same replays: the noise is not drawn")
	}
}

// TestSharedHostRun replays a real run of the demo on this 2-core machine
// while other tests loaded it (load average about 25): two cells, two
// repetitions each, 10 s warm-up, 90 s measure. Its noise and its finals'
// lengths come from the run itself.
func TestSharedHostRun(t *testing.T) {
	t.Parallel()
	run, err := results.LoadRun(filepath.Join("testdata", "shared-host"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Replay(run, Options{Seeds: 50})
	if err != nil {
		t.Fatal(err)
	}
	n := res.Noise[0]
	if !strings.Contains(n.Source, "measured: 2 cells' 5 s windows, 2 cells' repetitions") || n.RPS < 0.3 || n.P99 < 0.2 {
		t.Errorf("noise %+v: the repetitions differ by a factor of two", n)
	}
	if res.SteadyFromSamples == 0 || res.SteadyAssumed != 0 {
		t.Errorf("finals' lengths: %d from samples, %d assumed", res.SteadyFromSamples, res.SteadyAssumed)
	}
	// Finals run up to the grid's 90 s, never under 60 s. Both cells
	// survive the screen (its noise is 60 %), so halving screens out
	// nothing and costs more than the grid: the screen comes on top of
	// finals that measure at least two thirds of what the grid did.
	if got := res.Plan[1]; got.DurationS != 90 || got.MinimumS != 60 || got.WarmupS != 10 {
		t.Errorf("final round %+v, want 10 s warm-up, 60–90 s", got)
	}
	if res.Fraction < 0.9 || res.Fraction > 1.3 {
		t.Errorf("fraction %.2f: two cells, both finalists for 60–90 s of the grid's 90 s, plus a screening round", res.Fraction)
	}
	t.Logf("shared host: noise %+v, fraction %.2f, agreement %v", n, res.Fraction, res.Agreement)
}

func TestReplayRejects(t *testing.T) {
	t.Parallel()
	run := studyRun(t, 4*time.Second)
	if _, err := Replay(run, Options{Seeds: 10}); !errors.Is(err, ErrNoNoise) {
		t.Errorf("noisy replays of a run without repetitions or samples and no CV: %v, want ErrNoNoise", err)
	}
	for name, o := range map[string]Options{
		"negative seeds": {Seeds: -1}, "noise 100 %": {NoiseCV: 1}, "precision 1": {Precision: 1},
	} {
		if _, err := Replay(run, o); !errors.Is(err, sweep.ErrBadInput) {
			t.Errorf("%s: %v, want bad input", name, err)
		}
	}
	if _, err := Replay(studyRunAt(t, 0), Options{}); !errors.Is(err, sweep.ErrBadInput) {
		t.Errorf("a run without phase times: %v, want bad input", err)
	}
}

func TestResultJSON(t *testing.T) {
	t.Parallel()
	res, err := Replay(studyRun(t, 4*time.Second), Options{Seeds: 3, NoiseCV: 0.05, AssumedSteady: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Fraction  *float64           `json:"fraction"`
		Agreement map[string]float64 `json:"agreement"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Fraction == nil || *doc.Fraction <= 0 || *doc.Fraction >= 1 || len(doc.Agreement) != 3 {
		t.Errorf("JSON %s", b)
	}
	for key, r := range doc.Agreement {
		if r < 0 || r > 1 || r*3 != math.Round(r*3) {
			t.Errorf("agreement %s = %v: not a share of 3 replays", key, r)
		}
	}
}

func TestWriteTextOfNoisyReplays(t *testing.T) {
	t.Parallel()
	res, err := Replay(studyRun(t, 4*time.Second), Options{Seeds: 5, NoiseCV: 0.05, AssumedSteady: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Round 1: 80 cells × (5 s warm-up + 5 s) = 1120 s.", "until apart from its rivals or steady, 60–300 s",
		"over 5 replays", "Round 1 noise at 5 s: RPS 5.0 %, p99 5.0 % (assumed: 5.0 % given for every screening round whatever its length; no length stated",
		"Round 2 (finals) noise at 300 s: RPS 0.0 %, p99 0.0 % (none: the finalists at the grid's own figures", "band)", "latency", "web 1× pool"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestPooledNoiseWeighsByRPS: a starved cell (1 RPS, its repetitions 0.5
// and 1.5, a CV of 0.71) counts for what it served beside two busy ones
// (CVs 0.1 and 0.05 of RPS, 0.2 and 0.1 of p99), as halving.Band weighs a
// round's screens; unweighted it would set the noise at 0.42.
func TestPooledNoiseWeighsByRPS(t *testing.T) {
	t.Parallel()
	cells := []*cell{
		{rps: 1000, repRPS: []float64{900, 1100}, repP99: []float64{8, 12}},
		{rps: 1000, repRPS: []float64{950, 1050}, repP99: []float64{9, 11}},
		{rps: 1, repRPS: []float64{0.5, 1.5}, repP99: []float64{100, 300}},
		{rps: 500}, // no repetitions: no figure
	}
	a, b, n := pooled(cells, func(c *cell) ([]float64, []float64) { return c.repRPS, c.repP99 })
	// CVs (sample sd over mean): RPS 0.1414, 0.0707, 0.7071; p99 0.2828,
	// 0.1414, 0.7071; weights 1000, 1000, 1.
	wantA := math.Sqrt((1000*0.02 + 1000*0.005 + 0.5) / 2001)
	wantB := math.Sqrt((1000*0.08 + 1000*0.02 + 0.5) / 2001)
	if math.Abs(a-wantA) > 1e-12 || math.Abs(b-wantB) > 1e-12 || n != 3 {
		t.Errorf("pooled = %.6f, %.6f, %d; want %.6f, %.6f, 3", a, b, n, wantA, wantB)
	}
}
