package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// seriesDriver plays a synthetic per-second series as a driver would, in
// no time: it calls Interval for each second of the phase and ends at the
// phase's duration or at the first second after Stop is closed, with
// DurationS the seconds it played.
type seriesDriver struct {
	warm, measured func(s int) (rps, p99 float64)
	mu             sync.Mutex
	warmupStop     bool // a warm-up was given a Stop
	measuredStop   bool // a measured phase was given a Stop
	warmupInterval bool // a warm-up was given an Interval callback
}

func (d *seriesDriver) Name() string { return "fake" }

func (d *seriesDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	f := d.measured
	d.mu.Lock()
	if req.Warmup {
		f = d.warm
		d.warmupStop = d.warmupStop || req.Stop != nil
		d.warmupInterval = d.warmupInterval || req.Interval != nil
	} else {
		d.measuredStop = d.measuredStop || req.Stop != nil
	}
	d.mu.Unlock()
	var played int
	var requests int64
	for s := 1; s <= int(req.Duration.Seconds()); s++ {
		rps, p99 := f(s)
		n := int64(math.Round(rps))
		requests += n
		played = s
		if req.Interval != nil {
			req.Interval(results.Interval{T: float64(s), Requests: n, P99MS: p99})
		}
		if stopped(req.Stop) {
			break
		}
	}
	t := float64(played)
	return results.Measurement{Requests: requests, RPS: float64(requests) / t, DurationS: t,
		LatencyMS: results.Latency{P99: 10}}, nil
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// level is a series at rps with per-second noise cv and a flat p99.
func level(seed uint64, rps, cv float64) func(int) (float64, float64) {
	r := rand.New(rand.NewPCG(seed, 3))
	return func(int) (float64, float64) { return rps * (1 + cv*r.NormFloat64()), 10 }
}

// ramp climbs from a fifth of rps to rps over rampS seconds, then holds.
func ramp(seed uint64, rps float64, rampS int) func(int) (float64, float64) {
	flat := level(seed, rps, 0.02)
	return func(s int) (float64, float64) {
		v, p99 := flat(s)
		if s < rampS {
			v *= 0.2 + 0.8*float64(s)/float64(rampS)
		}
		return v, p99
	}
}

func steadySpec(precision float64, warmup, min, max time.Duration) Spec {
	s := testSpec()
	s.CPUs, s.WebMult = []float64{1}, []float64{1}
	s.Precision, s.Warmup, s.MinDuration, s.Duration = precision, Duration(warmup), Duration(min), Duration(max)
	return s
}

// runOne runs the spec's one cell with d and returns its record and
// result.json as written.
func runOne(t *testing.T, spec Spec, d Driver, jobs []Job) (results.Record, string) {
	t.Helper()
	dir := t.TempDir()
	r := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{}, Driver: d, Jobs: jobs}
	sum, err := r.Run(t.Context())
	if err != nil || len(sum.Records) != 1 {
		t.Fatalf("run: %v, %d records", err, len(sum.Records))
	}
	rec := sum.Records[0]
	b, err := os.ReadFile(filepath.Join(results.CellDir(dir, rec.Cell.ID, rec.Repetition), results.ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	return rec, string(b)
}

func TestRunnerStopsAFlatPhaseEarly(t *testing.T) {
	t.Parallel()
	d := &seriesDriver{warm: level(1, 1000, 0.01), measured: level(2, 1000, 0.01)}
	rec, file := runOne(t, steadySpec(0.02, 30*time.Second, 30*time.Second, 5*time.Minute), d, nil)
	if rec.Status != results.StatusOK {
		t.Fatalf("status %s: %s", rec.Status, rec.Reason)
	}
	st := rec.Stopping
	if st == nil || !st.StoppedEarly || st.SteadyAfterS != 30 || rec.DurationS != 30 {
		t.Fatalf("stopping %+v, measured %.0f s; want stopped early at the 30 s minimum", st, rec.DurationS)
	}
	if st.PrecisionReached == nil || *st.PrecisionReached > 0.02 || st.SteadyReason != "steady" {
		t.Errorf("precision reached %v, reason %q", st.PrecisionReached, st.SteadyReason)
	}
	// A flat warm-up settles after its two 5 s windows.
	if !st.WarmupSettled || st.WarmupUsedS != 10 || st.WarmupMaxS != 30 {
		t.Errorf("warm-up: %+v, want settled at 10 s of 30", st)
	}
	for _, key := range []string{`"stopped_early": true`, `"steady_after_s": 30`, `"precision_reached"`, `"warmup_used_s": 10`} {
		if !strings.Contains(file, key) {
			t.Errorf("result.json lacks %s", key)
		}
	}
}

func TestRunnerNeverStopsADriftingPhase(t *testing.T) {
	t.Parallel()
	rising := func(s int) (float64, float64) { return 1000 * (1 + 0.002*float64(s)), 10 }
	d := &seriesDriver{warm: level(3, 1000, 0.01), measured: rising}
	rec, file := runOne(t, steadySpec(0.02, 0, 30*time.Second, 3*time.Minute), d, nil)
	st := rec.Stopping
	if rec.Status != results.StatusOK || st == nil || st.StoppedEarly || rec.DurationS != 180 {
		t.Fatalf("status %s, stopping %+v, measured %.0f s; want the whole 180 s", rec.Status, st, rec.DurationS)
	}
	if !strings.Contains(st.SteadyReason, "RPS drifts") || !strings.Contains(file, `"stopped_early": false`) {
		t.Errorf("reason %q; result.json:\n%s", st.SteadyReason, file)
	}
	if st.WarmupUsedS != 0 || d.warmupStop {
		t.Errorf("no warm-up asked, yet %+v", st)
	}
}

func TestRunnerCutsAWarmupRampAtItsEnd(t *testing.T) {
	t.Parallel()
	for _, rampS := range []int{8, 20} {
		d := &seriesDriver{warm: ramp(4, 1000, rampS), measured: level(5, 1000, 0.01)}
		rec, _ := runOne(t, steadySpec(0.02, time.Minute, 30*time.Second, time.Minute), d, nil)
		st := rec.Stopping
		if !st.WarmupSettled || st.WarmupUsedS < float64(rampS) || st.WarmupUsedS > float64(rampS+10) {
			t.Errorf("ramp of %d s: warm-up %+v, want settled within 10 s of its end", rampS, st)
		}
		if rec.PhasesS["warmup"] < 0 {
			t.Errorf("warm-up phase %v", rec.PhasesS)
		}
	}
	// A ramp longer than the warm-up runs the warm-up to its end.
	d := &seriesDriver{warm: ramp(6, 1000, 50), measured: level(7, 1000, 0.01)}
	rec, _ := runOne(t, steadySpec(0.02, 20*time.Second, 30*time.Second, time.Minute), d, nil)
	if st := rec.Stopping; st.WarmupSettled || st.WarmupUsedS != 20 {
		t.Errorf("ramp past the warm-up: %+v, want 20 s, not settled", st)
	}
}

// TestPrecisionZeroKeepsFixedDurations: without a precision the phases
// run in full, the driver gets no Stop (and the warm-up no callback), and
// result.json has none of the rule's keys.
func TestPrecisionZeroKeepsFixedDurations(t *testing.T) {
	t.Parallel()
	d := &seriesDriver{warm: level(8, 1000, 0.01), measured: level(9, 1000, 0.01)}
	rec, file := runOne(t, steadySpec(0, 30*time.Second, 0, time.Minute), d, nil)
	if rec.Stopping != nil || rec.DurationS != 60 || d.warmupStop || d.measuredStop || d.warmupInterval {
		t.Errorf("stopping %+v, %.0f s, stop given %v/%v, warm-up callback %v", rec.Stopping, rec.DurationS,
			d.warmupStop, d.measuredStop, d.warmupInterval)
	}
	for _, key := range []string{"stopped_early", "steady_after_s", "precision", "warmup_used_s", `"round"`} {
		if strings.Contains(file, key) {
			t.Errorf("result.json of fixed durations has %s", key)
		}
	}
}

// TestJobFidelity: a job's own fidelity (a strategy's round) replaces
// the spec's durations and rule, and its round is recorded.
func TestJobFidelity(t *testing.T) {
	t.Parallel()
	spec := steadySpec(0, 30*time.Second, 0, 5*time.Minute)
	d := &seriesDriver{warm: level(10, 1000, 0.01), measured: level(11, 1000, 0.01)}
	short := &Fidelity{Round: 1, Warmup: 5 * time.Second, Duration: 12 * time.Second}
	rec, file := runOne(t, spec, d, []Job{{Cell: spec.Cells()[0], Rep: 1, Fidelity: short}})
	if rec.Status != results.StatusOK || rec.Round != 1 || rec.DurationS != 12 || rec.Stopping != nil {
		t.Errorf("round 1: status %s round %d, %.0f s, stopping %+v", rec.Status, rec.Round, rec.DurationS, rec.Stopping)
	}
	if !strings.Contains(file, `"round": 1`) {
		t.Errorf("result.json lacks the round")
	}
	final := &Fidelity{Round: 3, Warmup: 30 * time.Second, Duration: 2 * time.Minute, Precision: 0.02, MinDuration: 40 * time.Second}
	rec, _ = runOne(t, spec, d, []Job{{Cell: spec.Cells()[0], Rep: 1, Fidelity: final}})
	if st := rec.Stopping; rec.Round != 3 || st == nil || !st.StoppedEarly || st.SteadyAfterS != 40 || st.MaxDurationS != 120 {
		t.Errorf("final: round %d, stopping %+v", rec.Round, st)
	}
}

// TestP99ToleranceFollowsPrecision: a p99 that jumps from second to
// second (log-normal, σ 0.6) with a flat RPS keeps ±2 % from stopping in
// two minutes (p99 within 10 %), not ±10 % (p99 within 50 %).
func TestP99ToleranceFollowsPrecision(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		precision float64
		early     bool
	}{{0.02, false}, {0.10, true}} {
		r := rand.New(rand.NewPCG(13, 3))
		jumpy := func(int) (float64, float64) { return 1000, 10 * math.Exp(0.6*r.NormFloat64()) }
		d := &seriesDriver{warm: level(12, 1000, 0.01), measured: jumpy}
		rec, _ := runOne(t, steadySpec(c.precision, 0, 20*time.Second, 2*time.Minute), d, nil)
		if st := rec.Stopping; st.StoppedEarly != c.early {
			t.Errorf("precision %g: stopped early %v at %.0f s (%s), want %v", c.precision, st.StoppedEarly,
				rec.DurationS, st.SteadyReason, c.early)
		}
	}
}

// TestUpTo: the log says a phase may end early only when stopping is on.
func TestUpTo(t *testing.T) {
	t.Parallel()
	if got := upTo(Fidelity{}); got != "" {
		t.Errorf("fixed durations: %q, want none", got)
	}
	if got := upTo(Fidelity{Precision: 0.02}); got != "up to " {
		t.Errorf("precision 2 %%: %q, want \"up to \"", got)
	}
}
