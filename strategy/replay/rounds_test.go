package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
)

// interleavedGrid writes an interleaved grid run of one CPU limit's cells
// at the RPS levels (p99 20 ms × 1000 / level) over 7 rounds, every slice
// of a round moved alike by the host (±30 %) and by ±0.3 % of its own,
// 2 s slices, and loads it.
func interleavedGrid(t *testing.T, levels []float64) *results.Run {
	t.Helper()
	dir := t.TempDir()
	shift := []float64{0.7, 1.3, 0.9, 1.2, 0.8, 1.1, 1.0}
	var infos []results.CellInfo
	for i := range levels {
		wm := float64(i + 1)
		infos = append(infos, results.CellInfo{ID: fmt.Sprintf("cpu_1__web_%d__db_%d", i+1, 2*(i+1)), CPUs: 1,
			WebThreads: i + 1, DBPool: 2 * (i + 1), WebMult: wm, DBMult: 2, Mults: [][2]float64{{wm, 2}}})
	}
	write := func(path string, v any) {
		b, err := json.Marshal(v)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(path), 0o755)
		}
		if err == nil {
			err = os.WriteFile(path, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "sweep.json"), map[string]any{"schema_version": results.SchemaVersion, "run_id": "inter",
		"spec": map[string]any{"cpus": []float64{1}, "service": "app", "schedule": "interleaved"}, "cells": infos})
	for i, info := range infos {
		for k, s := range shift {
			own := 1 + 0.003*float64((i+k)%3-1)
			rec := results.Record{SchemaVersion: results.SchemaVersion, Cell: info, Repetition: k + 1, Status: results.StatusOK,
				Measurement: results.Measurement{RPS: levels[i] * s * own, Requests: 1000, DurationS: 2,
					LatencyMS: results.Latency{P99: 20 * 1000 / levels[i] / s / own}},
				LoadSlice: &results.LoadSlice{Group: 1, Round: k + 1, Position: 1 + (i+k)%len(levels), Targets: len(levels)}}
			write(filepath.Join(results.CellDir(dir, info.ID, k+1), results.ResultFile), rec)
		}
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestRoundsReplay: the rung after round 3 drops the two cells the paired
// rounds separate from the best and keeps the tied pair; the rung after
// round 6 can drop nothing and says so; the halving run measures 20 of
// the grid's 28 slices and picks what the grid picks.
func TestRoundsReplay(t *testing.T) {
	t.Parallel()
	run := interleavedGrid(t, []float64{1000, 1001, 900, 950})
	res, err := Rounds(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Rungs, []int{3, 6}) || len(res.Groups) != 1 || len(res.Groups[0].Cuts) != 2 {
		t.Fatalf("rungs %v, groups %+v; want rungs after 3 and 6 of one group", res.Rungs, res.Groups)
	}
	cuts := res.Groups[0].Cuts
	if want := []string{run.Cells[2].ID, run.Cells[3].ID}; !slices.Equal(cuts[0].Drop, want) {
		t.Errorf("rung 3 dropped %v, want %v", cuts[0].Drop, want)
	}
	if len(cuts[1].Drop) != 0 || cuts[1].Note == "" {
		t.Errorf("rung 6: %+v; want nothing dropped, and why", cuts[1])
	}
	if res.Slices != 20 || res.GridSlices != 28 || res.LoadS != 40 || res.GridLoadS != 56 {
		t.Errorf("slices %d of %d, load %g of %g s; want 20 of 28, 40 of 56", res.Slices, res.GridSlices, res.LoadS, res.GridLoadS)
	}
	if len(res.Picks) != 3 {
		t.Fatalf("picks %+v, want 3 profiles", res.Picks)
	}
	for _, p := range res.Picks {
		if !p.Agrees {
			t.Errorf("%s: halving picks %v, the grid %v", p.Profile, p.Halving, p.Grid)
		}
	}
	var b strings.Builder
	if err := WriteRoundsText(&b, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"after round 3: drops " + run.Cells[2].ID, "after round 6: drops nothing", "20 of the grid's 28 slices (71.4 %)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRoundsReplayStopsWithOneLeft: a rung that leaves one target ends
// the group's rounds, as the live run does: 12 of 28 slices.
func TestRoundsReplayStopsWithOneLeft(t *testing.T) {
	t.Parallel()
	res, err := Rounds(interleavedGrid(t, []float64{1000, 1030, 900, 950}), report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Groups[0]; len(g.Cuts) != 1 || len(g.Cuts[0].Drop) != 3 || g.Stopped == "" {
		t.Fatalf("group %+v; want one rung dropping 3 and the rounds stopped", g)
	}
	if res.Slices != 12 {
		t.Errorf("%d slices, want rounds 1-3 of 4 targets (12)", res.Slices)
	}
}
