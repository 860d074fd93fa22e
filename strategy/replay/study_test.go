package replay

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/studyrun"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// studyRun writes the study's table as a run directory at the study's
// durations with overhead per cell and loads it.
func studyRun(t *testing.T, overhead time.Duration) *results.Run {
	t.Helper()
	return studyRunAt(t, overhead)
}

// studyRunAt is studyRun with the study's durations, or with no timings
// at all when overhead is zero.
func studyRunAt(t *testing.T, overhead time.Duration) *results.Run {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "report", "testdata", "game-of-pools-summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	p := studyrun.Params{}
	if overhead > 0 {
		p = studyrun.StudyParams(overhead)
	}
	if err := studyrun.Write(dir, f, p); err != nil {
		t.Fatal(err)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestStudyReplay is the goal of issue 13 at the study's scale: the
// study's published table as a run at its own durations (30 s warm-up,
// 5 min measure) with 4 s overhead per cell, replayed 200 times through
// the default plan with noise drawn afresh per cell and round.
//
// Noise: 5 % CV on each screening value (RPS and p99). Within the study's
// own run, cells that differ only in pool size (which the study found
// moves RPS by < 2 %) scatter by 2.6 % RPS and 1.7 % p99 (root mean square
// over the 20 CPU × web groups) at 5 min; a 5 s round adds the noise of a
// short window (2.2 % for 5 % per second), about 3.4 % together, rounded
// up. Identical runs 10 min apart on a shared machine differ far more
// (66 %; this machine's own demo run, testdata/shared-host, 2.3×), but that
// is drift between runs, not between adjacent cells of one run.
//
// Finals: the steady-state rule stops a stationary series of 5 % noise per
// second at the final round's 60 s minimum (checked below), so each
// finalist costs 4 + 10 + 60 s.
func TestStudyReplay(t *testing.T) {
	t.Parallel()
	final := halving.DefaultPlan(30*time.Second, 5*time.Minute).Rounds[1]
	steadyAfter := steady.Scan(stationary(300, 2000, 0.05, 1), steady.Config{Precision: steady.DefaultPrecision,
		MinDuration: final.MinDuration, MaxDuration: final.Duration})
	if !steadyAfter.StoppedEarly || steadyAfter.SteadyAfterS != 60 {
		t.Fatalf("a stationary series of 5 %% per second: %+v, want a stop at 60 s", steadyAfter)
	}
	run := studyRun(t, 4*time.Second)
	res, err := Replay(run, Options{Seeds: 200, NoiseCV: 0.05, AssumedSteady: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("200 replays at 5 %% noise: %.1f %% of the grid's %.1f h on average (at most %.1f %%), agreement %v",
		100*res.Fraction, res.GridS/3600, 100*res.FractionMax, res.Agreement)
	if res.Fraction > 0.20 {
		t.Errorf("halving needed %.1f %% of the grid's time, the goal is 20 %%", 100*res.Fraction)
	}
	for _, key := range []string{"latency", "balanced", "throughput"} {
		if res.Agreement[key] < 0.95 {
			t.Errorf("%s: agreement %.3f, the goal is 0.95", key, res.Agreement[key])
		}
	}
	// At the noise make bench-strategy's screens measured on this machine
	// (benchNoise) the picks must still agree; the screens then rule out
	// little (most cells reach the finals), so the time is logged, not
	// held to the goal.
	noisy, err := Replay(run, Options{Seeds: 200, NoiseCV: benchNoise, AssumedSteady: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("200 replays at %.0f %% noise: %.1f %% of the grid's time, agreement %v", 100*benchNoise, 100*noisy.Fraction, noisy.Agreement)
	for _, key := range []string{"latency", "balanced", "throughput"} {
		if noisy.Agreement[key] < 0.95 {
			t.Errorf("%s at %.0f %% noise: agreement %.3f, the goal is 0.95", key, 100*benchNoise, noisy.Agreement[key])
		}
	}
	// Beside the goal, for the record: how far it holds.
	for _, o := range []Options{{NoiseCV: 0.10, AssumedSteady: time.Minute}, {NoiseCV: 0.26, AssumedSteady: time.Minute},
		{NoiseCV: 0.05, AssumedSteady: 90 * time.Second}} {
		o.Seeds = 200
		r, err := Replay(run, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("noise %.0f %%, finals of %s: %.1f %% of the grid's time, agreement %v", 100*o.NoiseCV, o.AssumedSteady, 100*r.Fraction, r.Agreement)
	}
}

// benchNoise is the relative noise of RPS and p99 in make bench-strategy's
// 2 s screens on this 2-core machine, as sweep replay measures it on that
// bench's grid run: the spread of 2 s windows within its measured phases,
// pooled over the cells weighted by their RPS (as halving.Band weighs a
// round's screens). Three invocations measured RPS 17.7, 14.0 and 13.3 %,
// p99 16.6, 11.7 and 14.6 %. The replay draws one CV for both figures:
// the largest, rounded up. Unweighted, the same runs measured RPS 24.1,
// 35.8 and 48.1 %: the pool-of-one cells, at about 1 RPS (the demo's
// background task holds their connection 600 ms a second), swing by 0.3–1.5
// between 2 s windows, which says how few requests they counted, not how
// far apart the cells that could win lie.
const benchNoise = 0.18

// stationary is n seconds around level with independent noise of cv.
func stationary(n int, level, cv float64, seed uint64) []results.Interval {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]results.Interval, n)
	for i := range out {
		out[i] = results.Interval{T: float64(i + 1), Requests: int64(level * (1 + cv*r.NormFloat64())),
			P99MS: 20 * (1 + cv*r.NormFloat64())}
	}
	return out
}
