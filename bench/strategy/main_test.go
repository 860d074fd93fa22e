package main

import (
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/replay"
	"github.com/sweep-tool/sweep/sweep"
)

func TestCommand(t *testing.T) {
	t.Parallel()
	c, err := parse([]string{"-sweep", "bin/sweep", "-bg-hold", "0.5s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cmd := command(t.Context(), c, "out/halving", "halving", []string{"--precision", "2%"})
	want := "bin/sweep run --config compose/demo/sweep.yaml --cpus 0.25,0.5,0.75 --web-mult 1,6 --db-mult 0.5,2 " +
		"--load vus=20 --warmup 5s --duration 45s --driver builtin --strategy halving --out out/halving --precision 2%"
	if got := strings.Join(cmd.Args, " "); got != want {
		t.Errorf("args %q\nwant %q", got, want)
	}
	if got := cmd.Env[len(cmd.Env)-1]; got != "DEMOAPP_BG_HOLD=500ms" {
		t.Errorf("last env %q, want DEMOAPP_BG_HOLD=500ms", got)
	}
	if d, _ := parse(nil, io.Discard); d.bgHold != 600*time.Millisecond {
		t.Errorf("default hold %s, want 600ms", d.bgHold)
	}
}

// TestDefaultGrid pins the bench's grid: 12 distinct cells, and one pair
// (6×2) whose pools stay above the two connections the demo's background
// task holds, at every CPU limit.
func TestDefaultGrid(t *testing.T) {
	t.Parallel()
	c, err := parse(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := c.Plan()
	if err != nil {
		t.Fatal(err)
	}
	pools := map[[2]float64][]int{}
	var threads []int
	for _, cell := range cells {
		if len(cell.Mults) != 1 {
			t.Errorf("%s is given by %d pairs, want 1", cell.ID, len(cell.Mults))
		}
		pools[cell.Mults[0]] = append(pools[cell.Mults[0]], cell.DBPool)
		if cell.Mults[0] == [2]float64{6, 2} {
			threads = append(threads, cell.WebThreads)
		}
	}
	want := map[[2]float64][]int{{1, 0.5}: {1, 1, 1}, {1, 2}: {2, 2, 2}, {6, 0.5}: {1, 2, 2}, {6, 2}: {4, 6, 8}}
	if len(cells) != 12 || !maps.EqualFunc(pools, want, slices.Equal[[]int]) {
		t.Errorf("%d cells, pools per pair %v; want 12 and %v", len(cells), pools, want)
	}
	if !slices.Equal(threads, []int{2, 3, 4}) {
		t.Errorf("6×2's web threads %v, want [2 3 4]", threads)
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	p := func(key string, w, d float64, eq ...[2]float64) report.Profile {
		return report.Profile{Key: key, Found: true, WebMult: w, DBMult: d, Best: [2]float64{w, d}, Equivalent: eq}
	}
	grid := &report.Report{Profiles: []report.Profile{p("latency", 2, 1), p("balanced", 4, 1, [2]float64{4, 2}), p("throughput", 6, 2)}}
	halving := &report.Report{Profiles: []report.Profile{p("latency", 2, 1), p("balanced", 4, 2), p("throughput", 6, 1)}}
	rows, agree := compare(grid, halving)
	want := []string{"yes (same pair)", "yes (equivalent in the grid)", "no"}
	var got []string
	for _, r := range rows {
		got = append(got, r[3])
	}
	if agree != 2 || !slices.Equal(got, want) {
		t.Errorf("agree %d, verdicts %v; want 2 and %v", agree, got, want)
	}
	if rows[2][1] != "web 6 × CPU, pool 2 × web" || rows[2][2] != "web 6 × CPU, pool 1 × web" {
		t.Errorf("throughput row %v", rows[2])
	}
}

func TestSpread(t *testing.T) {
	t.Parallel()
	cell := func(id string, rps ...float64) results.RunCell {
		c := results.RunCell{CellInfo: results.CellInfo{ID: id}}
		for _, r := range rps {
			c.Reps = append(c.Reps, results.Rep{Record: results.Record{Measurement: results.Measurement{RPS: r}}})
		}
		return c
	}
	grid := &results.Run{Cells: []results.RunCell{cell("a", 100), cell("b", 200), cell("c", 300)}}
	halving := &results.Run{Cells: []results.RunCell{cell("a", 110), cell("b"), cell("c", 240)}}
	for _, tc := range []struct {
		noise report.Noise
		want  string
	}{
		{report.Noise{RPS: 0.05}, "(the grid's report does not tell apart single RPS figures within 5.0 %, its noise assumed)"},
		{report.Noise{Measured: true, RPS: 0.373}, "(the grid's report does not tell apart single RPS figures within 37.3 %, its noise measured)"},
	} {
		want := "the 2 cells measured in full by both runs differ in RPS by a median 15.0 %, at most 20.0 % " + tc.want
		if got := spread(grid, halving, tc.noise); got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

// TestPrediction: the replays' agreement per profile and their mean are
// set beside the real halving run's verdicts (from the two reports) and
// wall times, in points.
func TestPrediction(t *testing.T) {
	t.Parallel()
	p := func(key string, w, d float64) report.Profile {
		return report.Profile{Key: key, Found: true, WebMult: w, DBMult: d, Best: [2]float64{w, d}}
	}
	grid := outcome{wall: 100 * time.Second, rep: &report.Report{Profiles: []report.Profile{p("latency", 2, 1), p("balanced", 4, 1), p("throughput", 6, 2)}}}
	halving := outcome{wall: 30 * time.Second, rep: &report.Report{Profiles: []report.Profile{p("latency", 2, 1), p("balanced", 4, 2), p("throughput", 6, 2)}}}
	res := &replay.Result{Replays: 200, Fraction: 0.25, FractionMax: 0.4,
		Agreement: map[string]float64{"latency": 1, "balanced": 0.4, "throughput": 0.85}}
	got := prediction(res, grid, halving)
	for _, want := range []string{
		"(200 replays at its measured per-length noise, the halving run's plan)",
		"balanced: 40.0 % of replays agree; the real halving run: no\n",
		"throughput: 85.0 % of replays agree; the real halving run: yes (same pair)\n",
		"agreement: predicted 75.0 %, real 66.7 % (2 of 3 profiles): +8.3 points\n",
		"time: predicted 25.0 % of the grid's (at most 40.0 %), real 30.0 %: -5.0 points\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}

// TestBusy: the busy loops spin until stopped, and stop.
func TestBusy(t *testing.T) {
	before := spun.Load()
	stop := busy(t.Context(), 2)
	deadline := time.Now().Add(5 * time.Second)
	for spun.Load() == before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if spun.Load() == before {
		t.Error("the busy loops did not spin within 5 s")
	}
}

// TestInterleavedArgs: -schedule interleaved hands both runs the schedule,
// the slice and the rounds (as many as fit into -duration by default),
// and bad schedule flags are refused naming the flag.
func TestInterleavedArgs(t *testing.T) {
	t.Parallel()
	c, err := parse([]string{"-schedule", "interleaved", "-duration", "60s", "-slice", "2s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.rounds != 30 {
		t.Errorf("rounds %d, want 30 (60s of 2s slices)", c.rounds)
	}
	cmd := command(t.Context(), c, "out/grid", "grid", nil)
	if got, want := strings.Join(cmd.Args, " "), "--duration 1m0s --driver builtin --schedule interleaved --slice 2s --rounds 30 --strategy grid --out out/grid"; !strings.HasSuffix(got, want) {
		t.Errorf("args %q\nwant them to end %q", got, want)
	}
	if got := sweep.RungsText(c.spec().Rungs()); got != "3, 6, 12, 24" {
		t.Errorf("rungs %s, want 3, 6, 12, 24", got)
	}
	// a slice that does not divide -duration: rounded up, as sweep plan
	// prices --rounds auto, so the bench's runs get sweep's own count
	if odd, err := parse([]string{"-schedule", "interleaved", "-duration", "45s", "-slice", "2s"}, io.Discard); err != nil || odd.rounds != 23 {
		t.Errorf("45s of 2s slices: %d rounds (%v), want 23", odd.rounds, err)
	}
	if seq, _ := parse(nil, io.Discard); len(seq.scheduleArgs()) != 0 {
		t.Errorf("the sequential default adds %v", seq.scheduleArgs())
	}
	for _, bad := range [][]string{
		{"-schedule", "random"},
		{"-schedule", "interleaved", "-slice", "0s"},
		{"-schedule", "interleaved", "-slice", "50s"},
		{"-rounds", "5"},
	} {
		if _, err := parse(bad, io.Discard); err == nil || !strings.Contains(err.Error(), bad[len(bad)-2]) {
			t.Errorf("parse %v: %v, want an error naming %s", bad, err, bad[len(bad)-2])
		}
	}
}

func TestRoundsPrediction(t *testing.T) {
	t.Parallel()
	p := func(key string, w, d float64) report.Profile {
		return report.Profile{Key: key, Found: true, WebMult: w, DBMult: d, Best: [2]float64{w, d}}
	}
	slice := func(round int) results.Rep {
		return results.Rep{Record: results.Record{Measurement: results.Measurement{DurationS: 2}, LoadSlice: &results.LoadSlice{Group: 1, Round: round}}}
	}
	grid := outcome{wall: 100 * time.Second, rep: &report.Report{Profiles: []report.Profile{p("latency", 2, 1), p("balanced", 4, 1), p("throughput", 6, 2)}}}
	halving := outcome{wall: 40 * time.Second,
		rep: &report.Report{Profiles: []report.Profile{p("latency", 2, 1), p("balanced", 4, 2), p("throughput", 6, 2)}},
		run: &results.Run{Cells: []results.RunCell{{Reps: []results.Rep{slice(1), slice(2), slice(3)}}, {Reps: []results.Rep{slice(1)}}}}}
	res := &replay.RoundsResult{Rungs: []int{3, 6}, Slices: 5, GridSlices: 20, LoadS: 10, GridLoadS: 40,
		Picks: []replay.Pick{{Profile: "latency", Agrees: true}, {Profile: "balanced", Agrees: true}, {Profile: "throughput", Agrees: false}}}
	got := roundsPrediction(res, grid, halving)
	for _, want := range []string{
		"(rungs after rounds 3, 6)",
		"picks in the grid's sets: the replay 2 of 3, the real halving run 2 of 3\n",
		"slices: the replay 5 of the grid's 20 (25.0 %), the real halving run 4 (20.0 %)\n",
		"load: the replay 10 s of the grid's 40 s (25.0 %), the real halving run 8 s; wall time 40.0 % of the grid's\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
}
