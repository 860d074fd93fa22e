package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestMetaReadsBackTheSpec: sweep.json is one type (results.Meta), written
// by Meta.Write and read by results.LoadRun; the spec's facts the report
// reads come back as the Spec wrote them, so a renamed Spec field cannot
// silently leave the report without them.
func TestMetaReadsBackTheSpec(t *testing.T) {
	t.Parallel()
	spec := Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Compose: []string{"a.yml", "b.yml"},
		Service: "app", WebEnv: "W", PoolEnv: "P", Repeat: 1, Load: LoadSpec{VUs: 3}, DBDSN: "postgres://u:secret@h/db"}
	dir := t.TempDir()
	meta := NewMeta("r1", "v1", spec)
	meta.Host.CPUCount = 8
	if err := meta.Write(dir); err != nil {
		t.Fatal(err)
	}
	cell := spec.Cells()[0]
	rec := results.Record{Cell: cell.Info(), Repetition: 1, Status: results.StatusOK}
	if err := os.MkdirAll(results.CellDir(dir, cell.ID, 1), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSONAtomic(filepath.Join(results.CellDir(dir, cell.ID, 1), results.ResultFile), rec); err != nil {
		t.Fatal(err)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{run.RunID, run.CPUs, run.WebMult, run.DBMult, run.Compose, run.Service, run.WebEnv, run.PoolEnv, run.HostCPUs, len(run.Cells)}
	want := []any{"r1", spec.CPUs, spec.WebMult, spec.DBMult, spec.Compose, spec.Service, spec.WebEnv, spec.PoolEnv, 8, len(spec.Cells())}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadRun read %v, want %v", got, want)
	}
	back, err := results.ReadMeta(dir)
	if err != nil || back.RunID != "r1" || back.ToolVersion != "v1" || !back.SampledDB() {
		t.Errorf("ReadMeta = %+v, %v; want run r1 of v1 that sampled a database", back, err)
	}
	if s, err := SpecOf(back, "postgres://u:new@h/db"); err != nil || !reflect.DeepEqual(s.Cells(), spec.Cells()) {
		t.Errorf("SpecOf = %v cells, %v; want the spec's", len(s.Cells()), err)
	}
}
