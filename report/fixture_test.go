package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/internal/studyrun"
	"github.com/sweep-tool/sweep/results"
)

// fxCell is a cell of a generated run directory and its repetitions.
type fxCell struct {
	info results.CellInfo
	reps []results.Rep
}

// fxGrid derives the cells of a multiplier grid with the half-to-even
// rule, merging pairs that give the same cell.
func fxGrid(cpus, webMults, dbMults []float64) []results.CellInfo {
	var cells []results.CellInfo
	index := map[string]int{}
	for _, cpu := range cpus {
		for _, wm := range webMults {
			for _, dm := range dbMults {
				web := max(1, int(math.RoundToEven(cpu*wm)))
				pool := max(1, int(math.RoundToEven(float64(web)*dm)))
				id := fmt.Sprintf("cpu_%g__web_%d__db_%d", cpu, web, pool)
				if i, ok := index[id]; ok {
					cells[i].Mults = append(cells[i].Mults, [2]float64{wm, dm})
					continue
				}
				index[id] = len(cells)
				cells = append(cells, results.CellInfo{ID: id, CPUs: cpu, WebThreads: web, DBPool: pool,
					WebMult: wm, DBMult: dm, Mults: [][2]float64{{wm, dm}}})
			}
		}
	}
	return cells
}

// writeRun writes sweep.json and every repetition's result.json.
func writeRun(t *testing.T, dir, runID string, spec map[string]any, cells []fxCell) {
	t.Helper()
	infos := make([]results.CellInfo, len(cells))
	for i, c := range cells {
		infos[i] = c.info
	}
	writeJSONFile(t, filepath.Join(dir, "sweep.json"), map[string]any{
		"schema_version": results.SchemaVersion, "run_id": runID, "spec": spec, "cells": infos,
	})
	for _, c := range cells {
		cellDir := filepath.Join(dir, "cells", c.info.ID)
		for i, r := range c.reps {
			r.SchemaVersion, r.Cell, r.Repetition = results.SchemaVersion, c.info, i+1
			writeJSONFile(t, filepath.Join(cellDir, fmt.Sprintf("r%d", i+1), "result.json"), r)
		}
	}
}

func writeJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeBytes(t, path, append(b, '\n'))
}

func writeBytes(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

var gopSpec = map[string]any{
	"cpus": []float64{2, 4, 6, 8}, "web_mult": []float64{1, 1.5, 2, 2.5, 3}, "db_mult": []float64{1.5, 2, 2.5, 3},
	"service": "aidbox", "web_env": "BOX_WEB_THREAD", "pool_env": "BOX_DB_POOL_MAXIMUM_POOL_SIZE",
}

// gopCells turns the study's published table into cells with one
// repetition each (5 minutes, k6, VUs = 2 × web threads, as the study ran).
func gopCells(t *testing.T) []fxCell {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "game-of-pools-summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := studyrun.Records(f, studyrun.Params{})
	if err != nil {
		t.Fatal(err)
	}
	cells := make([]fxCell, len(recs))
	for i, r := range recs {
		cells[i] = fxCell{info: r.Cell, reps: []results.Rep{{Record: r}}}
	}
	return cells
}
