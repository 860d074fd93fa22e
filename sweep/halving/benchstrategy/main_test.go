package main

import (
	"slices"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/results/report"
)

func TestCompare(t *testing.T) {
	t.Parallel()
	p := func(key string, w, d float64, eq ...[2]float64) report.Profile {
		return report.Profile{Key: key, Found: true, WebMult: w, DBMult: d, Equivalent: eq}
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
	want := "the 2 cells measured in full by both runs differ in RPS by a median 15.0 %, at most 20.0 % (the report calls cells within 5 % equivalent)"
	if got := spread(grid, halving); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
