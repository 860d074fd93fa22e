package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// writeRun writes a finished run of spec into dir with made-up figures:
// rps grows with web threads, p99 with the axis value's length.
func writeRun(t *testing.T, dir string, spec sweep.Spec) {
	t.Helper()
	meta := newMeta("20260101-000000", spec)
	meta.Spec, _ = json.Marshal(spec.Redacted())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta); err != nil {
		t.Fatal(err)
	}
	for i, c := range spec.Cells() {
		rec := results.Record{SchemaVersion: 1, Cell: c.Info(), Repetition: 1, Status: results.StatusOK,
			Load: spec.LoadFor(c, "builtin"), PhasesS: map[string]float64{}}
		rec.Requests, rec.RPS = 1000, 100*float64(c.WebThreads)+float64(i)
		rec.LatencyMS = results.Latency{P50: 2, P99: 5 + float64(len(c.Info().Slice()))}
		cd := results.CellDir(dir, c.ID, 1)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSONAtomic(filepath.Join(cd, results.ResultFile), rec); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReportSlicesExtraAxes(t *testing.T) {
	t.Parallel()
	spec, err := resolveSpec(t, "--cpus", "1,2", "--web-mult", "1,2", "--db-mult", "2",
		"--axis", "pgbouncer:POOL_MODE=transaction,session")
	if err != nil {
		t.Fatal(err)
	}
	spec.Service, spec.Repeat, spec.Order, spec.Driver = "app", 1, "grid", "builtin"
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, spec)

	code, out, stderr := runCLI(t, "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"== slice: pgbouncer:POOL_MODE=transaction ==", "== slice: pgbouncer:POOL_MODE=session ==", "CPU 2: RPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, f := range []string{"report.md", "results.csv", "slices/pgbouncer_POOL_MODE_session/report.html",
		"slices/pgbouncer_POOL_MODE_transaction/results.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	if !strings.Contains(string(csv), "axis.pgbouncer:POOL_MODE") || strings.Count(string(csv), "\n") != 9 {
		t.Errorf("results.csv should hold 8 rows with the axis column:\n%s", csv)
	}

	code, out, _ = runCLI(t, "report", dir, "--json")
	var doc struct {
		Slices []map[string]any `json:"slices"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Slices) != 2 || doc.Slices[0]["per_cpu"] == nil {
		t.Errorf("--json: exit %d, %d slices in %q", code, len(doc.Slices), out)
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"report", t.TempDir()},
		{"report", "/nonexistent/run"},
		{"report", t.TempDir(), "--metric", "speed"},
		{"compare", t.TempDir(), t.TempDir()},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}
