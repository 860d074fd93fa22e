package results

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

var loadCells = []CellInfo{
	{ID: "cpu_2__web_2__db_3", CPUs: 2, WebThreads: 2, DBPool: 3, WebMult: 1, DBMult: 1.5},
	{ID: "cpu_2__web_3__db_4", CPUs: 2, WebThreads: 3, DBPool: 4, WebMult: 1.5, DBMult: 1.5},
	{ID: "cpu_2__web_4__db_6", CPUs: 2, WebThreads: 4, DBPool: 6, WebMult: 2, DBMult: 1.5},
}

// partialRun writes a run in which cell 0 has two repetitions (one with a
// resources block), cell 1 has only a temp file of an unfinished write,
// and cell 2 was interrupted.
func partialRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "sweep.json"), map[string]any{
		"schema_version": 1, "run_id": "r1",
		"spec": map[string]any{"cpus": []float64{2}, "web_env": "W", "pool_env": "P", "service": "app",
			"compose": []string{"a.yaml", "b.yaml"}},
		"cells": loadCells,
		"host":  map[string]any{"cpu_count": 2},
	})
	c0 := filepath.Join(dir, "cells", loadCells[0].ID)
	writeJSON(t, filepath.Join(c0, "r2", "result.json"), map[string]any{
		"cell": loadCells[0], "repetition": 2, "status": "ok", "rps": 110,
		"resources": map[string]any{"app": map[string]any{"cpu_pct_of_limit_mean": 93.5}},
		"db":        map[string]any{"sessions": map[string]any{"total_peak": 4}},
	})
	writeJSON(t, filepath.Join(c0, "r1", "result.json"),
		Record{Cell: loadCells[0], Repetition: 1, Status: StatusOK, Measurement: Measurement{RPS: 100}})
	c1 := filepath.Join(dir, "cells", loadCells[1].ID, "r1")
	writeFile(t, filepath.Join(c1, "result.json.tmp"), `{}`)
	writeJSON(t, filepath.Join(dir, "cells", loadCells[2].ID, "r1", "result.json"),
		Record{Cell: loadCells[2], Repetition: 1, Status: StatusInterrupted})
	return dir
}

func TestLoadRunPartial(t *testing.T) {
	t.Parallel()
	run, err := LoadRun(partialRun(t))
	if err != nil {
		t.Fatal(err)
	}
	if run.RunID != "r1" || run.WebEnv != "W" || run.PoolEnv != "P" || run.Service != "app" ||
		!slices.Equal(run.Compose, []string{"a.yaml", "b.yaml"}) || run.HostCPUs != 2 {
		t.Errorf("spec fields = %+v", run)
	}
	reps := run.Cells[0].Reps
	if len(reps) != 2 || reps[0].Repetition != 1 || reps[1].RPS != 110 {
		t.Fatalf("cell 0 reps = %+v", reps)
	}
	if got := reps[1].Resources["app"].CPUPctOfLimitMean; got != 93.5 {
		t.Errorf("resources.app.cpu_pct_of_limit_mean = %v, want 93.5", got)
	}
	if reps[1].DB == nil || reps[1].DB.Sessions.TotalPeak != 4 || reps[0].DB != nil {
		t.Errorf("db blocks = %+v / %+v", reps[1].DB, reps[0].DB)
	}
	want := []string{loadCells[1].ID, loadCells[2].ID}
	if len(run.Missing) != 2 || run.Missing[0] != want[0] || run.Missing[1] != want[1] {
		t.Errorf("missing = %v, want %v", run.Missing, want)
	}
	if len(run.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", run.Warnings)
	}
}

// TestLoadRunNamesABadRecord checks that a result.json which is no record
// fails the load naming the file, instead of leaving its cell missing.
func TestLoadRunNamesABadRecord(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{
		"empty object": `{}`, "null": `null`, "truncated": `{"cell":{"id":"cpu_2__web_3`, "empty": ``,
		"no cell id": `{"status":"ok"}`, "unknown status": `{"status":"done","cell":{"id":"x"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := partialRun(t)
			bad := filepath.Join(dir, "cells", loadCells[1].ID, "r1", ResultFile)
			writeFile(t, bad, text)
			_, err := LoadRun(dir)
			if !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), bad) {
				t.Errorf("LoadRun = %v, want ErrBadRecord naming %s", err, bad)
			}
		})
	}
}

func TestLoadRunErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  error
	}{
		{"empty dir", func(*testing.T, string) {}, ErrNotRun},
		{"garbage sweep.json", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "sweep.json"), "not json")
		}, ErrNotRun},
		{"no cells planned", func(t *testing.T, dir string) {
			writeJSON(t, filepath.Join(dir, "sweep.json"), map[string]any{"run_id": "x"})
		}, ErrNotRun},
		{"nothing finished", func(t *testing.T, dir string) {
			writeJSON(t, filepath.Join(dir, "sweep.json"), map[string]any{"run_id": "x", "cells": loadCells})
		}, ErrNoFinishedCells},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := LoadRun(dir)
			if !errors.Is(err, tc.want) {
				t.Fatalf("LoadRun = %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := LoadRun(filepath.Join(t.TempDir(), "absent")); !errors.Is(err, ErrNotRun) {
		t.Errorf("absent dir: %v, want ErrNotRun", err)
	}
}

// TestLoadRunControls: the lanes' control records (control<lane>) are
// read apart from the repetitions, by lane; a cell with only controls is
// still missing.
func TestLoadRunControls(t *testing.T) {
	t.Parallel()
	dir := partialRun(t)
	for _, lane := range []int{2, 1} {
		writeJSON(t, filepath.Join(ControlDir(dir, loadCells[1].ID, lane), ResultFile),
			Record{Cell: loadCells[1], Status: StatusOK, Control: lane, Measurement: Measurement{RPS: float64(90 + lane)}})
	}
	writeJSON(t, filepath.Join(ControlDir(dir, loadCells[0].ID, 1), ResultFile),
		Record{Cell: loadCells[0], Status: StatusOK, Control: 1, Measurement: Measurement{RPS: 80}})
	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := run.Cells[0], run.Cells[1]
	if len(c0.Reps) != 2 || len(c0.Controls) != 1 || c0.Controls[0].Lane != 1 || c0.Controls[0].RPS != 80 {
		t.Errorf("cell 0: %d reps, controls %+v; want 2 reps and lane 1's control at 80 RPS", len(c0.Reps), c0.Controls)
	}
	if len(c1.Reps) != 0 || len(c1.Controls) != 2 || c1.Controls[0].Lane != 1 || c1.Controls[1].Lane != 2 ||
		c1.Controls[0].RPS != 91 || c1.Controls[1].Control != 2 {
		t.Errorf("cell 1: %d reps, controls %+v; want none and lanes 1 and 2 in order", len(c1.Reps), c1.Controls)
	}
	if !slices.Contains(run.Missing, loadCells[1].ID) {
		t.Errorf("missing %v, want cell 1 (controls only)", run.Missing)
	}
	if got := ControlDir("run", "c", 3); got != filepath.Join("run", "cells", "c", "control3") {
		t.Errorf("ControlDir = %s", got)
	}
}
