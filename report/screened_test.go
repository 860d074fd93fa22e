package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// writeScreen writes a screening-round record (cells/<id>/round<k>).
func writeScreen(t *testing.T, dir string, info results.CellInfo, round int, r results.Rep) {
	t.Helper()
	r.SchemaVersion, r.Cell, r.Repetition, r.DurationS = results.SchemaVersion, info, 1, 5.000463592
	writeJSONFile(t, filepath.Join(dir, "cells", info.ID, fmt.Sprintf("round%d", round), "result.json"), r)
}

// TestHalvingRunShowsScreenedCellsApart: a halving run's report analyses
// the finals only, shows the cells screened out with their short-run
// figures apart (never winning), and says which strategy recommended.
func TestHalvingRunShowsScreenedCellsApart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	infos := fxGrid([]float64{1, 2}, []float64{1, 2, 3}, []float64{2})
	byWeb := map[float64][2]float64{1: {1000, 10}, 2: {1500, 20}, 3: {900, 40}} // RPS per CPU, p99
	var cells []fxCell
	for _, info := range infos {
		f := byWeb[info.WebMult]
		c := fxCell{info: info}
		if info.WebMult != 3 { // finalists: measured in full
			c.reps = []results.Rep{okRep(f[0]*info.CPUs, f[1], 0)}
		}
		cells = append(cells, c)
	}
	spec := map[string]any{"cpus": []float64{1, 2}, "web_mult": []float64{1, 2, 3}, "db_mult": []float64{2},
		"service": "app", "web_env": "WEB", "pool_env": "POOL", "strategy": "halving"}
	writeRun(t, dir, "halv", spec, cells)
	for _, info := range infos {
		r := okRep(byWeb[info.WebMult][0]*info.CPUs*1.1, byWeb[info.WebMult][1], 0)
		if info.ID == "cpu_2__web_6__db_12" {
			r = failedRep("ready: timed out")
		}
		writeScreen(t, dir, info, 1, r)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	screened := []string{"cpu_1__web_3__db_6", "cpu_2__web_6__db_12"}
	if run.Strategy != StrategyHalving || !slices.Equal(run.Screened, screened) || len(run.Missing) != 0 {
		t.Fatalf("strategy %q, screened %v, missing %v", run.Strategy, run.Screened, run.Missing)
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Cells {
		if slices.Contains(screened, c.ID) != (c.Status == statusScreened) || c.Status == statusScreened && !strings.Contains(c.Ineligible, "screened out after round 1") {
			t.Errorf("%s: status %s, ineligible %q", c.ID, c.Status, c.Ineligible)
		}
	}
	if p := rep.Profiles[2]; !p.Found || p.WebMult != 2 {
		t.Errorf("throughput-first picked %+v; want web 2 (the screened web 3 never wins)", p)
	}
	var out bytes.Buffer
	if err := WriteTerminal(&out, rep, MetricRPS); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(990, 5s, screened 1) [6]", "(failed, 5s, screened 1) [12]",
		"Strategy: successive halving. The recommendation rests on the 4 cells measured in full"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("terminal report lacks %q:\n%s", want, out.String())
		}
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, rep, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<td class="screened">(990, 5s, screened 1) [6]</td>`) ||
		!strings.Contains(page.String(), "td.screened { color: #999;") {
		t.Errorf("report.html does not grey the screened cell")
	}
	// A grid run's page has no screened cells and no style for them.
	grid := *rep
	grid.Strategy = ""
	page.Reset()
	if err := WriteHTML(&page, &grid, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "td.screened") {
		t.Errorf("a grid run's report.html styles screened cells")
	}
	if got := rep.Recommendation().Strategy; got != StrategyHalving {
		t.Errorf("recommendation's strategy %q, want halving", got)
	}
}

// TestScreenedTextAndStrategyNote pins a screened cell's error entry (in
// percent) and the count of cells the halving recommendation rests on:
// all of them but the screened and the missing.
func TestScreenedTextAndStrategyNote(t *testing.T) {
	t.Parallel()
	c := &Cell{CellInfo: results.CellInfo{DBPool: 6},
		Screened: &Screening{Round: 1, Status: results.StatusOK, DurationS: 5, RPS: 990, P99MS: 12.5, ErrorRate: 0.025}}
	for m, want := range map[Metric]string{MetricErrors: "(2.50, 5s, screened 1) [6]", MetricRPS: "(990, 5s, screened 1) [6]",
		MetricP99: "(12.50, 5s, screened 1) [6]"} {
		if got := screenedText(c, m); got != want {
			t.Errorf("screenedText(%s) = %q, want %q", m, got, want)
		}
	}
	rep := &Report{Strategy: StrategyHalving, Cells: make([]*Cell, 6), Screened: []string{"a", "b"}, Missing: []string{"c"}}
	if got := strategyNote(rep); !strings.Contains(got, "rests on the 3 cells measured in full") || !strings.Contains(got, "; 2 cells were measured only") ||
		!strings.HasSuffix(got, "a screened cell's screen as measured (too few finalists to show round 1's noise).") {
		t.Errorf("strategyNote = %q", got)
	}
	rep.screenNoise = relNoise{rps: 0.2149, p99: 0.0351}
	if got := strategyNote(rep); !strings.HasSuffix(got, "pulled in by round 1's noise as the finals show it (RPS 21.5 %, P99 3.5 %).") {
		t.Errorf("strategyNote with round 1's noise = %q", got)
	}
}
