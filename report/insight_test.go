package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// generatorEvidence makes a repetition generator-bound: the host's CPUs
// contended 60 % of the phase, the driver spending as much CPU per request
// as the target (usage puts the target at appPct/100 cores), the target at
// appPct of its limit.
func generatorEvidence(r *results.Rep) {
	target := r.Resources["app"]
	r.Driver = &results.DriverStats{CPUPerRequestUS: target.CPUCoresMean / r.RPS * 1e6}
	r.Host = &results.HostStats{CPUPressure: &results.CPUPressure{SomeShare: 0.6}}
}

// littles gives a repetition a Little's ratio of ratio (expected 1).
func littles(ratio float64) func(*results.Rep) {
	return func(r *results.Rep) {
		r.LatencyMS.Avg = ratio * float64(r.Load.VUs) / r.RPS * 1000
		r.SetLittles()
	}
}

func TestGeneratorBoundBottleneck(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		rep  results.Rep
		want string
	}{
		{"generator evidence", okRep(100, 5, 0, usage(50, 10, 1), generatorEvidence), BottleneckGenerator},
		{"pool reached first", okRep(100, 5, 0, usage(50, 10, 4), generatorEvidence), BottleneckPool},
		{"target CPU at its limit", okRep(100, 5, 0, usage(90, 10, 1), generatorEvidence), BottleneckCPU},
		{"no pressure figure", okRep(100, 5, 0, usage(50, 10, 1)), BottleneckNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc := results.RunCell{CellInfo: results.CellInfo{ID: "c", CPUs: 1, WebThreads: 2, DBPool: 4}, Reps: []results.Rep{tc.rep}}
			if got := summarise(rc, "app", sweep.PoolShape{}, DefaultOptions()).Bottleneck; got != tc.want {
				t.Errorf("bottleneck = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestGeneratorBoundWinnerIsNoted: the best cell at CPU 1 is
// generator-bound, and another cell's Little's ratio is off; the matrices
// mark both and explain the marks, and the recommendation names the
// generator-bound cell.
func TestGeneratorBoundWinnerIsNoted(t *testing.T) {
	t.Parallel()
	grid := fxGrid([]float64{1}, []float64{1, 2}, []float64{2})
	reps := map[string][]results.Rep{
		"cpu_1__web_1__db_2": {okRep(500, 5, 0, usage(60, 20, 1), littles(0.7))},
		"cpu_1__web_2__db_4": {okRep(900, 4, 0, usage(50, 20, 1), generatorEvidence, littles(1))},
	}
	var cells []fxCell
	for _, info := range grid {
		cells = append(cells, fxCell{info: info, reps: reps[info.ID]})
	}
	dir := t.TempDir()
	writeRun(t, dir, "gen", map[string]any{"cpus": []float64{1}, "web_mult": []float64{1, 2}, "db_mult": []float64{2},
		"service": "app", "web_env": "WEB_THREADS", "pool_env": "DB_POOL"}, cells)
	slowed := sweep.GeneratorRun{Driver: "k6", Status: results.StatusOK, RPS: 600}
	gc := sweep.CompareGenerators(grid[1], slowed, sweep.GeneratorRun{Driver: "builtin", Status: results.StatusOK, RPS: 900})
	if err := gc.Write(dir); err != nil {
		t.Fatal(err)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep, nil, ""); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	for _, want := range []string{
		`900 [4] \* G`, // the best RPS cell (Markdown escapes the star), generator-bound
		"500 [2] L",    // Little's ratio 0.7
		"G generator-bound: the load generator, not the target",
		"L Little's law off by more than 10 %",
		"| generator-bound |",
		"Note: generator-bound: cpu_1__web_2__db_4 (host CPU pressure 60 %",
		"Generator check: the load generator, not the target, limits results on this host: on cpu_1__web_2__db_4 " +
			"the k6 driver reached 600 rps, 33 % below the builtin driver's 900 rps",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(text)
	}
	var csvOut bytes.Buffer
	if err := WriteCSV(&csvOut, rep); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"littles_ratio", "littles_expected", "host.cpu_pressure_some_share", "driver.cpu_per_request_us"} {
		if !strings.Contains(strings.SplitN(csvOut.String(), "\n", 2)[0], col) {
			t.Errorf("results.csv lacks the column %s", col)
		}
	}
	thr, _ := rep.Profile("throughput")
	if !strings.Contains(thr.Note, "cpu_1__web_2__db_4") {
		t.Errorf("throughput profile note %q does not name the generator-bound cell", thr.Note)
	}
}
