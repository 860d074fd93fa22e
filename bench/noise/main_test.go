package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/bench/internal/benchcli"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/replay"
	"github.com/sweep-tool/sweep/sweep"
)

func TestCommand(t *testing.T) {
	t.Parallel()
	c, err := parse([]string{"-sweep", "bin/sweep", "-control-every", "7"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.backends != [2]string{compose, compose} || c.named {
		t.Errorf("backends %v (named %v) without -backends, want compose twice, unnamed", c.backends, c.named)
	}
	want := "bin/sweep run --config compose/demo/sweep.yaml --cpus 1,2 --web-mult 1,2,4,6,8 --db-mult 1,2 " +
		"--load vus=20 --warmup 3s --duration 10s --driver builtin --control-every 7 --out out/a"
	cmd := command(t.Context(), c, compose, "out/a")
	if got := strings.Join(cmd.Args, " "); got != want {
		t.Errorf("args %q\nwant %q", got, want)
	}
	if cmd.Env != nil {
		t.Errorf("a compose run's environment %q, want sweep's own (nil)", cmd.Env)
	}
	if _, err := parse([]string{"-control-every", "0"}, io.Discard); err == nil {
		t.Error("-control-every 0 accepted: the bench would measure no control")
	}
	c, err = parse([]string{"-max-repeat", "3"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(command(t.Context(), c, compose, "out/b").Args, " "); !strings.HasSuffix(got,
		" --control-every 10 --repeat auto --max-repeat 3 --out out/b") {
		t.Errorf("-max-repeat 3: args %q, want --repeat auto --max-repeat 3 before --out", got)
	}
	if _, err := parse([]string{"-max-repeat", "1"}, io.Discard); err == nil {
		t.Error("-max-repeat 1 accepted: no repetition beyond the first")
	}
}

// TestKubeCommand: with -backends compose,kubernetes run b is the same
// grid on the Kubernetes fixture as TestKubernetesRunEndToEnd runs the
// demo (its manifests, Deployment app, the URL as a pod sees it, the
// load a Job on node 2), the database's DSN and the kubeconfig in the
// environment, not in argv.
func TestKubeCommand(t *testing.T) {
	t.Parallel()
	c, err := parse([]string{"-sweep", "bin/sweep", "-backends", "compose,kubernetes", "-cpus", "1,1.5"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.backends != [2]string{compose, kubernetes} || !c.named {
		t.Fatalf("backends %v (named %v), want compose, kubernetes, named", c.backends, c.named)
	}
	c.kube = benchcli.Kube{Manifests: "out/k8s/manifests.yaml", LoadImage: "sweep-drive:0123456789ab",
		ResetSQL: "compose/demo/reset.sql", Kubeconfig: "/var/lib/sweep-k8s/admin.kubeconfig"}
	cmd := command(t.Context(), c, kubernetes, "out/b")
	want := "bin/sweep run --kubernetes --manifests out/k8s/manifests.yaml --service app --url http://app:8080 --ready-path /health " +
		"--db-reset-sql compose/demo/reset.sql --load-image sweep-drive:0123456789ab --place load=sweep.index=2 " +
		"--cpus 1,1.5 --web-mult 1,2,4,6,8 --db-mult 1,2 --load vus=20 --warmup 3s --duration 10s --driver builtin " +
		"--control-every 10 --out out/b"
	if got := strings.Join(cmd.Args, " "); got != want {
		t.Errorf("args %q\nwant %q", got, want)
	}
	n := len(cmd.Env)
	if n < 2 || !slices.Equal(cmd.Env[n-2:], []string{"KUBECONFIG=/var/lib/sweep-k8s/admin.kubeconfig",
		"SWEEP_DB_DSN=postgres://sweep:sweep@db:5432/sweep?sslmode=disable"}) {
		t.Errorf("environment ends %q, want the kubeconfig and the DSN of Service db last (they win)", cmd.Env[max(0, n-2):])
	}
	// run a, on compose, is today's command
	if got := strings.Join(command(t.Context(), c, compose, "out/a").Args, " "); !strings.HasPrefix(got, "bin/sweep run --config compose/demo/sweep.yaml --cpus 1,1.5 ") {
		t.Errorf("run a: %q", got)
	}
	// make bench-backends' grid (CPU 1,1.5) is as distinct as the default
	cells, err := c.Plan()
	if err != nil || len(cells) != 20 {
		t.Errorf("-cpus 1,1.5: %d cells (%v), want 20", len(cells), err)
	}
	for _, cell := range cells {
		if len(cell.Mults) != 1 {
			t.Errorf("-cpus 1,1.5: %s is given by %d pairs, want 1", cell.ID, len(cell.Mults))
		}
	}
	for _, bad := range []string{"compose", "compose,swarm", "compose,kubernetes,compose", ""} {
		if _, err := parse([]string{"-backends", bad}, io.Discard); err == nil {
			t.Errorf("-backends %q accepted", bad)
		}
	}
}

// TestDefaultGrid pins the bench's grid: 20 distinct cells, each given by
// one pair, and a default control interval that measures enough controls
// in it for the report to measure its noise.
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
	for _, cell := range cells {
		if len(cell.Mults) != 1 {
			t.Errorf("%s is given by %d pairs, want 1", cell.ID, len(cell.Mults))
		}
	}
	if len(cells) != 20 {
		t.Errorf("%d cells, want 20", len(cells))
	}
	n := sweep.Spec{ControlEvery: c.controlEvery}.ControlCount(len(cells))
	if n < report.MinControls {
		t.Errorf("%d controls in the default grid, the report measures its noise from %d", n, report.MinControls)
	}
}

func profile(key string, w, d float64, eq ...[2]float64) report.Profile {
	return report.Profile{Key: key, Found: true, WebMult: w, DBMult: d, Best: [2]float64{w, d}, Equivalent: eq}
}

func TestCrossPicks(t *testing.T) {
	t.Parallel()
	a := &report.Report{Profiles: []report.Profile{
		profile("latency", 2, 1),
		profile("balanced", 4, 1, [2]float64{4, 2}),
		profile("throughput", 6, 2),
	}}
	b := &report.Report{Profiles: []report.Profile{
		profile("latency", 2, 1),
		profile("balanced", 4, 2),                     // in a's set; a's pick not in b's
		profile("throughput", 8, 2, [2]float64{6, 2}), // a's pick in b's set; b's not in a's
	}}
	rows := crossPicks(a, b)
	want := []pickRow{
		{"latency", "2×1 (set of 1)", "2×1 (set of 1)", true, true},
		{"balanced", "4×1 (set of 2)", "4×2 (set of 1)", false, true},
		{"throughput", "6×2 (set of 1)", "8×2 (set of 2)", true, false},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
	// A profile one run found and the other did not agrees neither way.
	none := &report.Report{Profiles: []report.Profile{{Key: "latency"}}}
	if r := crossPicks(a, none); len(r) != 1 || r[0].aInB || r[0].bInA || r[0].pickB != "none" {
		t.Errorf("against a run without a pick: %+v", r)
	}
}

func TestOutsideShare(t *testing.T) {
	t.Parallel()
	res := &replay.Result{Replays: 200, Agreement: map[string]float64{"latency": 0.955, "balanced": 1}}
	for key, want := range map[string]string{"latency": "4.5 % of 200", "balanced": "0.0 % of 200", "throughput": "no pick"} {
		if got := outsideShare(res, key); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
}

func cell(id string, status results.Status, rps, p99 report.Estimate) *report.Cell {
	return &report.Cell{CellInfo: results.CellInfo{ID: id}, Status: status, RPS: rps, P99: p99}
}

// est is a single figure with a band of ±5 %.
func est(x float64) report.Estimate {
	return report.Estimate{Mean: x, Lo: 0.95 * x, Hi: 1.05 * x, N: 1}
}

func TestSameCells(t *testing.T) {
	t.Parallel()
	a := &report.Report{Cells: []*report.Cell{
		cell("c1", results.StatusOK, est(1000), est(20)),  // both apart by less than the bands
		cell("c2", results.StatusOK, est(1000), est(20)),  // RPS apart, p99 not
		cell("c3", results.StatusOK, est(1000), est(20)),  // failed in b: not counted
		cell("c4", results.StatusOK, est(1000), est(20)),  // not in b
		cell("c5", results.StatusOK, est(1000), est(200)), // p99 apart
	}}
	b := &report.Report{Cells: []*report.Cell{
		cell("c5", results.StatusOK, est(1050), est(250)),
		cell("c1", results.StatusOK, est(1090), est(21)),
		cell("c2", results.StatusOK, est(1200), est(20)),
		cell("c3", results.StatusFailed, report.Estimate{}, report.Estimate{}),
	}}
	got := sameCells(a, b)
	if got != (cellAgreement{both: 3, rps: 2, p99: 2}) {
		t.Errorf("%+v, want 3 cells in both, RPS 2, p99 2", got)
	}
	if s := got.String(); !strings.Contains(s, "RPS 2 of 3 (67 %), p99 2 of 3 (67 %)") {
		t.Errorf("%q", s)
	}
	if s := sameCells(a, &report.Report{}).String(); s != "no cell finished ok in both runs" {
		t.Errorf("%q", s)
	}
}

// job is a record of seconds s from t0 to t0+s with its warm-up and
// measured phase.
func job(at, s, warmup, measure float64) results.Record {
	t0 := time.Date(2026, 12, 3, 21, 0, 0, 0, time.UTC)
	start := t0.Add(time.Duration(at * float64(time.Second)))
	return results.Record{StartedAt: start, FinishedAt: start.Add(time.Duration(s * float64(time.Second))),
		PhasesS: map[string]float64{"apply": s - warmup - measure, "warmup": warmup, "measure": measure}}
}

func TestControlCost(t *testing.T) {
	t.Parallel()
	run := &results.Run{Cells: []results.RunCell{
		{Reps: []results.Rep{{Record: job(16, 20, 3, 10)}},
			Controls: []results.Control{
				{Lane: 1, Seq: 1, Record: job(0, 16, 3, 5)},
				{Lane: 1, Seq: 2, Record: job(60, 14, 3, 5)},
				{Lane: 1, Seq: 0, Record: job(100, 50, 3, 5)}, // a lane's control of --parallel: not the run's
			}},
		{Reps: []results.Rep{{Record: job(36, 24, 3, 10)}}},
	}}
	c := controlCost(run, 80*time.Second)
	want := cost{controls: 2, controlsS: 30, cellsS: 44, wallS: 80, overheadS: 9}
	if c != want {
		t.Errorf("%+v, want %+v", c, want)
	}
	if s := c.String(); !strings.HasPrefix(s, "2 controls took 30 s of the run's 80 s (37.5 %; 68.2 % of its cells' 44 s)") {
		t.Errorf("%q", s)
	}
	if s := controlCost(&results.Run{}, time.Second).String(); s != "no control measured" {
		t.Errorf("%q", s)
	}
}

// TestAtDefaults checks the projection against the figures of
// sweep.DefaultControlEvery's comment (and the README): 8 s of overhead,
// 30 s + 5 min cells, a control every 10 cells.
func TestAtDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cells, every int
		want         string
	}{
		{20, 10, "3 controls of 68 s beside 20 cells of 338 s: 3.0 % of the cells' time, 2.9 % of the run's"},
		{100, 10, "11 controls of 68 s beside 100 cells of 338 s: 2.2 % of the cells' time, 2.2 % of the run's"},
		{20, 0, "no control"},
	} {
		if got := atDefaults(8, tc.cells, tc.every); got != tc.want {
			t.Errorf("%d cells every %d: %q\nwant %q", tc.cells, tc.every, got, tc.want)
		}
	}
}

// TestWrite runs the printing over two reports Build made of small
// in-memory runs: the rows must come out of those reports and the
// replays given, not be fixed in the text.
func TestWrite(t *testing.T) {
	t.Parallel()
	mk := func(best float64) outcome {
		var cells []results.RunCell
		for i, info := range sweep.BuildPlan([]float64{1}, []float64{1, 2}, []float64{1}) {
			rps := 500.0
			if i == 1 {
				rps = best
			}
			rec := job(float64(20*i), 20, 3, 10)
			rec.Status, rec.Cell = results.StatusOK, info.Info()
			rec.RPS, rec.Requests, rec.LatencyMS.P99 = rps, int64(10*rps), 20
			cells = append(cells, results.RunCell{CellInfo: info.Info(), Reps: []results.Rep{{Record: rec}}})
		}
		run := &results.Run{RunID: "r", Service: "app", CPUs: []float64{1}, WebMult: []float64{1, 2}, DBMult: []float64{1}, Cells: cells}
		rep, err := report.Build(run, report.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return outcome{name: "x", wall: 60 * time.Second, run: run, rep: rep,
			replay: &replay.Result{Replays: 10, Agreement: map[string]float64{"latency": 1, "balanced": 0.8, "throughput": 0.9}}}
	}
	a, b := mk(1000), mk(300)
	a.name, b.name = "a", "b"
	a.label, b.label = "a", "b on kubernetes"
	c, _ := parse(nil, io.Discard)
	var out bytes.Buffer
	if err := write(&out, a, b, c); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"a: noise assumed 5 %",
		// a picks web 2 on RPS, b web 1: neither in the other's set
		// (the cells are 2× apart); latency ties at p99 20 ms.
		"agreement: 1 of 3 profiles",
		"20.0 % of 10",
		"cells the reports cannot tell apart across the runs (each figure ± half its run's band): RPS 1 of 2 (50 %), p99 2 of 2 (100 %)",
		"a: no control measured",
		"b on kubernetes: noise assumed 5 %",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}
