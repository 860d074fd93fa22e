package halving

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/memstack"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// secondsDriver plays each cell's figures (screen for short phases, full
// for the finals) second by second with 1 % noise, hands every second to
// the runner and stops when told, as a real driver does.
type secondsDriver struct {
	stack        *memstack.Stack
	screen, full map[string]fig
	rng          *rand.Rand
}

func (d *secondsDriver) Name() string { return "fake" }
func (d *secondsDriver) Run(_ context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	figs := d.full
	if req.Duration < 30*time.Second {
		figs = d.screen
	}
	f := figs[d.stack.Last.Env["W"]+"/"+sweep.FormatNumber(d.stack.Last.CPUs)]
	var requests int64
	var p99 float64
	played := 0
seconds:
	for s := 1; s <= int(req.Duration.Seconds()); s++ {
		n := int64(math.Round(f.rps * d.stack.Last.CPUs * (1 + 0.01*d.rng.NormFloat64())))
		p := f.p99 * (1 + 0.01*d.rng.NormFloat64())
		requests, p99, played = requests+n, max(p99, p), s
		if req.Interval != nil {
			req.Interval(results.Interval{T: float64(s), Requests: n, P99MS: p})
		}
		select {
		case <-req.Stop: // a nil Stop never ends the phase
			break seconds
		default:
		}
	}
	t := float64(played)
	return results.Measurement{Requests: requests, RPS: float64(requests) / t, ErrorRate: f.errRate,
		LatencyMS: results.Latency{P99: p99}, DurationS: t}, nil
}

// samples is a monitor that only writes samples.csv, so a finished
// final's intervals are on disk for the finals after it.
type samples struct{}

func (samples) Start(context.Context, sweep.Cell, string) error { return nil }
func (samples) Stop(_ context.Context, _ *results.Record, dir string, ivs []results.Interval) error {
	return results.WriteSamples(dir, results.Series{Intervals: ivs})
}

// TestFinalsStopOnceApart: the finals (2 min, never before 1 min) at
// each CPU limit are A (1000 RPS, p99 10 ms), B (1200, 50 ms) and C. A
// is far from B's and C's screens: it stops at the minimum. B is
// measured next, with C still known only by its screen (1190 within the
// round's band): they overlap, so B runs its full 2 min. C is ranked
// against A's and B's finals: at 1400 RPS it is apart from both and
// stops at the minimum; at B's very figures it never is and runs full
// length, as a grid cell would.
func TestFinalsStopOnceApart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		c     fig
		wantC float64
	}{{"C ahead", fig{rps: 1400, p99: 48}, 60}, {"C tied with B", fig{rps: 1200, p99: 50}, 120}} {
		full := figsOf(map[float64]fig{1: {rps: 1000, p99: 10}, 2: {rps: 1200, p99: 50}, 3: tc.c,
			4: {rps: 600, p99: 80}, 5: {rps: 800, p99: 55}, 6: {rps: 2000, p99: 5, errRate: 0.02}})
		dir := t.TempDir()
		st := &memstack.Stack{}
		r := &sweep.Runner{Spec: testSpec(), RunID: "h", Dir: dir, Stack: st, Monitor: samples{},
			Driver: &secondsDriver{stack: st, screen: screenFigs, full: full, rng: rand.New(rand.NewPCG(1, 2))}}
		if _, err := run(t, r); err != nil {
			t.Fatal(err)
		}
		if r.Rivals != nil {
			t.Errorf("%s: the runner still ranks against the finals' rivals after the run", tc.name)
		}
		for _, cpu := range []string{"1", "2"} {
			cells := map[float64]string{1: "cpu_1__web_1__db_2", 2: "cpu_1__web_2__db_4", 3: "cpu_1__web_3__db_6"}
			if cpu == "2" {
				cells = map[float64]string{1: "cpu_2__web_2__db_4", 2: "cpu_2__web_4__db_8", 3: "cpu_2__web_6__db_12"}
			}
			for web, want := range map[float64]float64{1: 60, 2: 120, 3: tc.wantC} {
				rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cells[web], 1), results.ResultFile))
				if err != nil {
					t.Fatal(err)
				}
				st := rec.Stopping
				if st == nil || rec.DurationS != want || st.Rivals != 2 || st.Apart != (want < 120) {
					t.Errorf("%s: %s measured %g s, stopping %+v; want %g s against 2 rivals", tc.name, cells[web], rec.DurationS, st, want)
				}
				t.Logf("%s: %s %g s: %s", tc.name, cells[web], rec.DurationS, st.SteadyReason)
			}
		}
		// The finals' figures still pick as the grid would: C when ahead.
		rep := reportOf(t, dir, r.Spec)
		if p := rep.Profiles[2]; tc.wantC == 60 && (!p.Found || p.WebMult != 3) {
			t.Errorf("%s: throughput-first picked %+v, want web 3", tc.name, p)
		}
	}
}
