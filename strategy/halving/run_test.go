package halving

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/memstack"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// driver measures each cell with the figures of its web multiplier
// (RPS per CPU): short phases (screening) see screen, full-length ones
// full. It counts measured phases by length and can cancel the run at
// the nth.
type driver struct {
	stack        *memstack.Stack
	screen, full map[string]fig // by web env value / CPUs pair, see key
	phases       map[time.Duration]int
	cancel       func()
	at, n        int
}

func (d *driver) Name() string { return "fake" }
func (d *driver) Run(ctx context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	d.n++
	if d.cancel != nil && d.n == d.at {
		d.cancel()
		return results.Measurement{}, ctx.Err()
	}
	d.phases[req.Duration]++
	figs := d.full
	if req.Duration < 30*time.Second {
		figs = d.screen
	}
	f := figs[d.stack.Last.Env["W"]+"/"+sweep.FormatNumber(d.stack.Last.CPUs)]
	rps := f.rps * d.stack.Last.CPUs
	return results.Measurement{Requests: int64(rps * req.Duration.Seconds()), RPS: rps, ErrorRate: f.errRate,
		LatencyMS: results.Latency{P99: f.p99}, DurationS: req.Duration.Seconds()}, nil
}

var answering = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}))

// The grid: CPUs 1 and 2 × web multipliers 1..6 × pool 2. By web
// multiplier: A (1) is latency's best, B (2) throughput's in the screening
// round and C (3) its tie, D (4) the worst, E (5) middling,
// F (6) the fastest but with 2 % errors. In full, C is clearly ahead of B.
var (
	screenFigs = figsOf(map[float64]fig{1: {rps: 1000, p99: 10}, 2: {rps: 1200, p99: 50}, 3: {rps: 1190, p99: 48},
		4: {rps: 600, p99: 80}, 5: {rps: 800, p99: 55}, 6: {rps: 2000, p99: 5, errRate: 0.02}})
	fullFigs = figsOf(map[float64]fig{1: {rps: 1000, p99: 10}, 2: {rps: 1200, p99: 50}, 3: {rps: 1400, p99: 48},
		4: {rps: 600, p99: 80}, 5: {rps: 800, p99: 55}, 6: {rps: 2000, p99: 5, errRate: 0.02}})
)

// figsOf keys figures by the cell's web threads and CPUs.
func figsOf(by map[float64]fig) map[string]fig {
	out := map[string]fig{}
	for _, c := range testSpec().Cells() {
		out[sweep.FormatNumber(float64(c.WebThreads))+"/"+sweep.FormatNumber(c.CPUs)] = by[c.Mults[0][0]]
	}
	return out
}

func testSpec() sweep.Spec {
	return sweep.Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2, 3, 4, 5, 6}, DBMult: []float64{2},
		Service: "app", WebEnv: "W", PoolEnv: "P", URL: answering.URL, ReadyPath: "/health",
		ReadyTimeout: sweep.Duration(time.Second), Warmup: sweep.Duration(10 * time.Second),
		Duration: sweep.Duration(2 * time.Minute), Load: sweep.LoadSpec{VUs: 3}, Driver: "builtin",
		Repeat: 1, Order: sweep.OrderGrid, Strategy: sweep.StrategyHalving}
}

func newRunner(t *testing.T, dir string) (*sweep.Runner, *driver) {
	t.Helper()
	st := &memstack.Stack{}
	d := &driver{stack: st, screen: screenFigs, full: fullFigs, phases: map[time.Duration]int{}}
	return &sweep.Runner{Spec: testSpec(), RunID: "h", Dir: dir, Stack: st, Driver: d}, d
}

func run(t *testing.T, r *sweep.Runner) (sweep.Summary, error) {
	t.Helper()
	return Run(t.Context(), r, DefaultPlan(r.Spec.Warmup.Std(), r.Spec.Duration.Std()), report.DefaultOptions())
}

// finals lists the cells of the grid with a full-length record (r1).
func finals(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, c := range testSpec().Cells() {
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, c.ID, 1), results.ResultFile))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Round != 2 || rec.DurationS != 120 {
			t.Errorf("%s final: round %d, %g s; want round 2 of 120 s (the grid's 2 min: no interval to stop on)", c.ID, rec.Round, rec.DurationS)
		}
		out = append(out, c.ID)
	}
	return out
}

// wantFinals: A (latency), B and its tie C (throughput); not D nor E,
// nor F with its errors.
var wantFinals = []string{"cpu_1__web_1__db_2", "cpu_1__web_2__db_4", "cpu_1__web_3__db_6",
	"cpu_2__web_2__db_4", "cpu_2__web_4__db_8", "cpu_2__web_6__db_12"}

func TestRunScreensEveryCellAndMeasuresWhatCouldWinInFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, d := newRunner(t, dir)
	sum, err := run(t, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 12+len(wantFinals) || d.phases[5*time.Second] != 12 || d.phases[120*time.Second] != len(wantFinals) {
		t.Fatalf("%d records, phases by length %v; want 12 screened for 5 s and %d finals of 120 s", len(sum.Records), d.phases, len(wantFinals))
	}
	for _, c := range r.Spec.Cells() {
		rec, err := results.ReadRecord(filepath.Join(results.ScreenDir(dir, c.ID, 1), results.ResultFile))
		if err != nil || rec.Round != 1 || rec.DurationS != 5 || rec.Status != results.StatusOK {
			t.Errorf("%s screening record: round %d, %g s, %s, %v; want round 1 of 5 s", c.ID, rec.Round, rec.DurationS, rec.Status, err)
		}
	}
	if got := finals(t, dir); !slices.Equal(got, wantFinals) {
		t.Errorf("finals %v, want %v", got, wantFinals)
	}
	rep := reportOf(t, dir, r.Spec)
	// C overtook B in full: the throughput pick is the finals', not the
	// screening round's.
	if p := rep.Profiles[2]; !p.Found || p.WebMult != 3 {
		t.Errorf("throughput-first picked %+v, want web 3 (C, ahead in the finals)", p)
	}
	if p := rep.Profiles[0]; !p.Found || p.WebMult != 1 {
		t.Errorf("latency-first picked %+v, want web 1 (A)", p)
	}
	if rep.Strategy != report.StrategyHalving || len(rep.Screened) != 6 {
		t.Errorf("strategy %q, screened %v; want halving and D's, E's and F's cells", rep.Strategy, rep.Screened)
	}
}

// TestRunResumesMidRound stops the run in the screening round and again
// in the final round; each resume measures only what is missing and
// ends with the finals of an uninterrupted run.
func TestRunResumesMidRound(t *testing.T) {
	t.Parallel()
	for _, at := range []int{4, 14} { // the 4th screening phase, the 2nd final
		dir := t.TempDir()
		r, d := newRunner(t, dir)
		ctx, cancel := context.WithCancel(t.Context())
		d.cancel, d.at = cancel, at
		_, err := Run(ctx, r, DefaultPlan(r.Spec.Warmup.Std(), r.Spec.Duration.Std()), report.DefaultOptions())
		if !errors.Is(err, sweep.ErrInterrupted) {
			t.Fatalf("stopped at phase %d: %v, want interrupted", at, err)
		}
		r, d = newRunner(t, dir)
		sum, err := run(t, r)
		if err != nil {
			t.Fatal(err)
		}
		screened := max(0, 12-(at-1))
		finalsLeft := len(wantFinals) - max(0, at-1-12)
		if d.phases[5*time.Second] != screened || d.phases[120*time.Second] != finalsLeft {
			t.Errorf("resumed after phase %d: measured %v; want %d screening and %d final phases", at, d.phases, screened, finalsLeft)
		}
		if sum.Skipped != 12-screened+len(wantFinals)-finalsLeft {
			t.Errorf("resumed after phase %d: %d skipped", at, sum.Skipped)
		}
		if got := finals(t, dir); !slices.Equal(got, wantFinals) {
			t.Errorf("resumed after phase %d: finals %v, want %v", at, got, wantFinals)
		}
	}
}

// reportOf writes the sweep.json a session would and builds the report.
func reportOf(t *testing.T, dir string, spec sweep.Spec) *report.Report {
	t.Helper()
	var infos []results.CellInfo
	for _, c := range spec.Cells() {
		infos = append(infos, c.Info())
	}
	b, err := json.Marshal(map[string]any{"run_id": "h", "spec": spec, "cells": infos})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, results.MetaFile), b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Build(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestDescribePricesBothStrategies: 12 cells of 8 s overhead, 10 s
// warm-up and 2 min measure; halving screens for 5 + 5 s, and its finals
// at worst run every cell 10 s + 2 min (the grid's length): at worst
// halving costs the screens more than the grid.
func TestDescribePricesBothStrategies(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.Precision = 0.02
	lines := Describe(spec, DefaultPlan(spec.Warmup.Std(), spec.Duration.Std()))
	want := []string{
		"worst case, grid: 28m6s, every cell in full",
		"worst case, halving: 31m42s, if every cell survived every round; it ends sooner by what each round screens out",
		"  round 1: every remaining cell once, warm-up 5s + measure 5s; keeps per profile its best multiplier pair of 6 and every pair the round's measured noise cannot rule out (≤ 3m36s)",
		"  round 2 (finals): the survivors × 1 repetitions, warm-up ≤ 10s + measure ≤ 2m0s, each until its intervals are apart " +
			"from every other finalist's at its CPU limit or it is steady within ±2 %, never before 1m0s (≤ 27m36s)",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%q\nwant\n%q", lines, want)
	}
}

// TestRunMeasuresTheBaselineInFull: baseline cells are never screened;
// they run in the final round beside the survivors, so the report can
// measure the picks against them.
func TestRunMeasuresTheBaselineInFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r, _ := newRunner(t, dir)
	r.Spec.Baseline = &sweep.Baseline{WebThreads: 2, DBPool: 4}
	if _, err := run(t, r); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"cpu_1__web_2__db_4__baseline", "cpu_2__web_2__db_4__baseline"} {
		if _, err := os.Stat(results.ScreenDir(dir, id, 1)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was screened (%v)", id, err)
		}
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, id, 1), results.ResultFile))
		if err != nil || rec.Status != results.StatusOK || rec.DurationS != 120 || !rec.Cell.Baseline {
			t.Errorf("%s: %+v %v, want a full-length baseline record", id, rec.Cell, err)
		}
	}
	if rep := reportOf(t, dir, r.Spec); len(rep.Gains) != 6 {
		t.Errorf("%d gains, want 3 profiles × 2 CPU limits", len(rep.Gains))
	}
}
