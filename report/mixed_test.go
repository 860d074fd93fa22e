package report

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

// rep builds an ok repetition; mods add metrics.
func okRep(rps, p99, errRate float64, mods ...func(*results.Rep)) results.Rep {
	r := results.Rep{Record: results.Record{Status: results.StatusOK,
		Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 8},
		Measurement: results.Measurement{Requests: int64(rps * 60), RPS: rps, ErrorRate: errRate, DurationS: 60,
			LatencyMS: results.Latency{P50: p99 / 3, P99: p99}}}}
	for _, m := range mods {
		m(&r)
	}
	return r
}

func failedRep(reason string) results.Rep {
	return results.Rep{Record: results.Record{Status: results.StatusFailed, Reason: reason}}
}

func usage(appPct, dbPct float64, activePeak int) func(*results.Rep) {
	return func(r *results.Rep) {
		r.Resources = map[string]results.ResourceStats{
			"app": {CPUPctOfLimitMean: appPct, CPUCoresMean: appPct / 100},
			"db":  {CPUPctOfLimitMean: dbPct, CPULimitCores: 2},
		}
		r.DB = &results.DBStats{Sessions: results.DBSessions{TotalPeak: activePeak + 1, ActivePeak: activePeak}, TPSMean: 100}
	}
}

func dropped(n int64) func(*results.Rep) { return func(r *results.Rep) { r.DroppedIterations = n } }

// split gives a repetition a latency breakdown of its p99: waiting holds
// most of it, receiving and sending a little, connect only the tail
// (conns requests dialled, the rest reused their connection).
func split(conns int64) func(*results.Rep) {
	return func(r *results.Rep) {
		p99 := r.LatencyMS.P99
		phase := func(share float64) results.Latency {
			x := share * p99
			return results.Latency{Avg: x / 2, Min: x / 10, P50: x / 3, P75: x / 2, P90: x * 0.8, P95: x * 0.9, P99: x, Max: 2 * x}
		}
		r.Breakdown = &results.Breakdown{
			Connect: results.Latency{Avg: 0.002, P99: 0.25, Max: 1.5}, Sending: phase(0.01),
			Waiting: phase(0.9), Receiving: phase(0.05), NewConnections: conns,
		}
	}
}

var mixedSpec = map[string]any{
	"cpus": []float64{1, 2}, "web_mult": []float64{1, 2}, "db_mult": []float64{1.5, 2, 3},
	"service": "app", "web_env": "WEB_THREADS", "pool_env": "DB_POOL",
}

// mixedCells is a small run with repetitions, a cell reported under two
// multiplier pairs, ties, a cell above the error bound, failed and
// missing cells, and sampler metrics for every bottleneck label.
func mixedCells() []fxCell {
	grid := fxGrid([]float64{1, 2}, []float64{1, 2}, []float64{1.5, 2, 3})
	reps := map[string][]results.Rep{
		"cpu_1__web_1__db_2": {okRep(500, 5, 0, usage(95, 30, 1), split(8)), okRep(510, 5.2, 0, usage(96, 30, 1), split(8)),
			okRep(505, 5.1, 0, usage(94, 30, 1), split(9))},
		"cpu_1__web_1__db_3": {{Record: results.Record{Status: results.StatusInterrupted}}},
		"cpu_1__web_2__db_3": {okRep(620, 12, 0, usage(70, 30, 3)), okRep(600, 13, 0, usage(70, 30, 3)), okRep(640, 12.5, 0, usage(70, 30, 3))},
		"cpu_1__web_2__db_4": {okRep(700, 14, 0.03), okRep(690, 15, 0.02), okRep(710, 14.5, 0.04)},
		"cpu_1__web_2__db_6": {okRep(630, 12.8, 0)},
		"cpu_2__web_2__db_3": {okRep(1000, 6, 0, usage(60, 92, 1)), okRep(1040, 6.3, 0, usage(60, 92, 1)), okRep(1020, 6.1, 0, usage(60, 92, 1))},
		"cpu_2__web_2__db_4": {okRep(1010, 6.2, 0, usage(60, 40, 1), split(16)), okRep(1030, 6.0, 0, usage(60, 40, 1), split(16)),
			okRep(1050, 6.4, 0, usage(60, 40, 1), split(16))},
		"cpu_2__web_4__db_6":  {okRep(1200, 20, 0.001, dropped(5), split(16)), okRep(1180, 21, 0, dropped(2)), okRep(1220, 19, 0, split(16))},
		"cpu_2__web_4__db_8":  {failedRep("target not ready after 120s"), failedRep("target not ready after 120s")},
		"cpu_2__web_4__db_12": {okRep(1190, 20.5, 0, split(0)), failedRep("connection refused")},
	}
	cells := make([]fxCell, 0, len(grid))
	for _, info := range grid {
		cells = append(cells, fxCell{info: info, reps: reps[info.ID]})
	}
	return cells
}

// TestFixtures regenerates the committed run directories and compares
// them file by file (-update rewrites them).
func TestFixtures(t *testing.T) {
	cases := []struct {
		name, runID string
		spec        map[string]any
		cells       func(t *testing.T) []fxCell
	}{
		{"gop", "game-of-pools", gopSpec, gopCells},
		{"mixed", "mixed", mixedSpec, func(*testing.T) []fxCell { return mixedCells() }},
		{"limits", "find-limit", limitsSpec, func(*testing.T) []fxCell { return limitsCells() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := filepath.Join("testdata", tc.name)
			if testenv.Update() {
				if err := os.RemoveAll(want); err != nil {
					t.Fatal(err)
				}
				writeRun(t, want, tc.runID, tc.spec, tc.cells(t))
				return
			}
			got := t.TempDir()
			writeRun(t, got, tc.runID, tc.spec, tc.cells(t))
			assertSameTree(t, got, want)
		})
	}
}

func assertSameTree(t *testing.T, got, want string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(got, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(got, path)
		g, _ := os.ReadFile(path)
		w, err := os.ReadFile(filepath.Join(want, rel))
		if err != nil || !bytes.Equal(g, w) {
			t.Errorf("%s differs from the generator (run go test -update): %v", rel, err)
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walk %s: %v (%d files)", got, err, n)
	}
}
