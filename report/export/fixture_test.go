package export

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// fixture is a run directory to write: its spec and, per cell id, the
// RPS and P99 of its one ok repetition (cells left out are missing).
type fixture struct {
	spec  sweep.Spec
	cells map[string][2]float64
}

// loadFixture writes f as a run directory and reads it back.
func loadFixture(t *testing.T, f fixture) *results.Run {
	t.Helper()
	dir := t.TempDir()
	writeRun(t, dir, f)
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// writeRun writes f as a run directory in dir: sweep.json with the
// spec's plan and a result.json per measured cell.
func writeRun(t *testing.T, dir string, f fixture) {
	t.Helper()
	raw, err := json.Marshal(f.spec)
	if err != nil {
		t.Fatal(err)
	}
	meta := results.Meta{SchemaVersion: results.SchemaVersion, RunID: "fixture", Spec: raw,
		Host: results.HostFacts{CPUCount: 2}}
	for _, c := range f.spec.Cells() {
		meta.Cells = append(meta.Cells, c.Info())
	}
	if err := results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta); err != nil {
		t.Fatal(err)
	}
	for _, info := range meta.Cells {
		m, ok := f.cells[info.ID]
		if !ok {
			continue
		}
		rec := results.Record{SchemaVersion: results.SchemaVersion, Cell: info, Repetition: 1,
			Status: results.StatusOK, Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 8},
			Measurement: results.Measurement{Requests: int64(m[0] * 10), RPS: m[0], DurationS: 10,
				LatencyMS: results.Latency{P99: m[1]}}}
		cellDir := results.CellDir(dir, info.ID, 1)
		if err := results.MakeDir(cellDir); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSONAtomic(filepath.Join(cellDir, results.ResultFile), rec); err != nil {
			t.Fatal(err)
		}
	}
}

// smallSpec is a demo-sized grid: CPU limits 1 and 2, web 1 and 2 ×
// CPUs, pool 1.5 and 2 × web (at 1 CPU both pools of web 1 round to 2).
func smallSpec() sweep.Spec {
	return sweep.Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{1.5, 2},
		Compose: []string{filepath.Join("testdata", "app-deploy.yaml")}, Service: "app",
		WebEnv: "WEB_THREADS", PoolEnv: "DB_POOL"}
}

// smallRun measured every cell of smallSpec.
func smallRun() fixture {
	return fixture{spec: smallSpec(), cells: map[string][2]float64{
		"cpu_1__web_1__db_2": {300, 8}, "cpu_1__web_2__db_3": {420, 9}, "cpu_1__web_2__db_4": {430, 12},
		"cpu_2__web_2__db_3": {560, 6}, "cpu_2__web_2__db_4": {600, 6.5},
		"cpu_2__web_4__db_6": {820, 9}, "cpu_2__web_4__db_8": {840, 13},
	}}
}

// disjointRun measured other multiplier pairs at each CPU limit, so no
// pair has a result at both.
func disjointRun() fixture {
	return fixture{spec: smallSpec(), cells: map[string][2]float64{
		"cpu_1__web_2__db_3": {420, 9}, "cpu_2__web_2__db_4": {600, 6.5},
	}}
}
