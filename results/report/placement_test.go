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
