package report

import (
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestPlacementWarnings(t *testing.T) {
	t.Parallel()
	rec := func(id string, app, db, load string) results.Rep {
		r := results.Record{Cell: results.CellInfo{ID: id}, Applied: results.Applied{Nodes: map[string]results.NodeInfo{
			"app": {ID: app}, "db": {ID: db}}}}
		if load != "" {
			r.LoadNode = &results.NodeInfo{ID: load}
		}
		return results.Rep{Record: r}
	}
	cell := func(id string, reps ...results.Rep) results.RunCell {
		return results.RunCell{CellInfo: results.CellInfo{ID: id}, Reps: reps}
	}
	run := &results.Run{Service: "app", Cells: []results.RunCell{
		cell("c1", rec("c1", "B", "A", "C")),
		cell("c2", rec("c2", "B", "B", "C")),
		cell("c3", rec("c3", "B", "A", "B")),
		cell("c4", results.Rep{Record: results.Record{Cell: results.CellInfo{ID: "c4"}}}),
	}}
	got := placementWarnings(run)
	if len(got) != 2 {
		t.Fatalf("warnings %q, want one for db and one for the load", got)
	}
	if !strings.Contains(got[0], "node B with db in c2:") || !strings.Contains(got[1], "node B with the load in c3:") {
		t.Errorf("warnings %q", got)
	}
	run.Cells = run.Cells[:1]
	if got := placementWarnings(run); len(got) != 0 {
		t.Errorf("apart: warnings %q, want none", got)
	}
}

func TestNodeCellsAndTheirControl(t *testing.T) {
	t.Parallel()
	rec := func(id string, rep int, node string, rps float64) results.Rep {
		return results.Rep{Record: results.Record{Cell: results.CellInfo{ID: id}, Repetition: rep, Status: results.StatusOK, Measurement: results.Measurement{RPS: rps},
			Applied: results.Applied{Nodes: map[string]results.NodeInfo{"app": {ID: node, Hostname: "h"}}}}}
	}
	cell := func(id string, reps ...results.Rep) results.RunCell {
		return results.RunCell{CellInfo: results.CellInfo{ID: id}, Reps: reps}
	}
	run := &results.Run{Service: "app", Cells: []results.RunCell{
		cell("c1", rec("c1", 1, "A", 100), rec("c1", 2, "B", 104)),
		cell("c2", rec("c2", 1, "B", 90)),
		cell("c3", rec("c3", 1, "A", 80)),
	}}
	nodes := nodeCells(run)
	if len(nodes) != 2 || nodes[0].Node != "A" || strings.Join(nodes[0].Cells, ",") != "c1 r1,c3 r1" ||
		strings.Join(nodes[1].Cells, ",") != "c1 r2,c2 r1" {
		t.Errorf("nodes %+v, want A with c1 r1 and c3 r1, B with c1 r2 and c2 r1", nodes)
	}
	if w := nodeWarnings(run, 0.05); len(w) != 0 {
		t.Errorf("4 %% apart with a 5 %% band: %q, want none", w)
	}
	run.Cells[0].Reps[1].Record.RPS = 120
	if w := nodeWarnings(run, 0.05); len(w) != 1 || !strings.Contains(w[0], "c1 18 % apart in RPS (A 100, B 120)") {
		t.Errorf("18 %% apart: %q, want one warning naming the nodes' figures", w)
	}
	run.Cells = run.Cells[2:]
	if nodes := nodeCells(run); nodes != nil {
		t.Errorf("one node: %+v, want none listed", nodes)
	}
}

// TestNodeCellsControls: the lanes' controls are listed per node before
// the cell's repetitions and compared apart from them: 100 vs 120 RPS on
// two nodes is flagged as the control's spread, the repetitions (one
// node) not at all; a failed control is left out.
func TestNodeCellsControls(t *testing.T) {
	t.Parallel()
	rec := func(node string, rps float64, status results.Status) results.Record {
		return results.Record{Status: status, Measurement: results.Measurement{RPS: rps},
			Applied: results.Applied{Nodes: map[string]results.NodeInfo{"app": {ID: node, Hostname: "h"}}}}
	}
	r1 := rec("A", 300, results.StatusOK)
	r1.Repetition = 1
	run := &results.Run{Service: "app", Cells: []results.RunCell{
		{CellInfo: results.CellInfo{ID: "c1"}, Reps: []results.Rep{{Record: r1}},
			Controls: []results.Control{{Lane: 1, Record: rec("A", 100, results.StatusOK)}, {Lane: 2, Record: rec("B", 120, results.StatusOK)}}},
	}}
	nodes := nodeCells(run)
	if len(nodes) != 2 || strings.Join(nodes[0].Cells, ",") != "c1 control,c1 r1" || strings.Join(nodes[1].Cells, ",") != "c1 control" {
		t.Errorf("nodes %+v, want A with c1's control and r1, B with c1's control", nodes)
	}
	want := "the lanes' nodes measured the control cell c1 18 % apart in RPS (A 100, B 120), more than the 5 % noise band: " +
		"the nodes do not measure alike, so cells measured on different nodes are not comparable as they stand"
	if w := nodeWarnings(run, 0.05); len(w) != 1 || w[0] != want {
		t.Errorf("warnings %q, want\n%s", w, want)
	}
	run.Cells[0].Controls[1].Status = results.StatusFailed
	if w := nodeWarnings(run, 0.05); len(w) != 0 {
		t.Errorf("one ok control: %q, want none", w)
	}
}
