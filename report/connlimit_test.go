package report

import (
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestSkippedAndConnLimit: a cell the guard skipped shows SKIPPED with
// its reason in the matrices and never wins; a cell whose record names
// the connection limit gets the conn-limit bottleneck, even with errors.
func TestSkippedAndConnLimit(t *testing.T) {
	t.Parallel()
	infos := fxGrid([]float64{1}, []float64{1, 2, 3}, []float64{2})
	ok := func(rps float64, errRate float64, conn ...string) results.Rep {
		return results.Rep{Record: results.Record{Status: results.StatusOK, ConnLimit: conn,
			Measurement: results.Measurement{RPS: rps, ErrorRate: errRate, LatencyMS: results.Latency{P99: 10}}}}
	}
	skipped := results.Rep{Record: results.Record{Status: results.StatusSkipped,
		Reason: "pool 4 × 1 replica(s) = 4 connections, over the 3 allowed (…)"}}
	cells := []fxCell{
		{info: infos[0], reps: []results.Rep{ok(100, 0.2, "2 line(s) of the target's log say too many clients")}},
		{info: infos[1], reps: []results.Rep{skipped}},
		{info: infos[2], reps: []results.Rep{ok(90, 0)}},
	}
	rep := buildRun(t, map[string]any{"cpus": []float64{1}, "web_mult": []float64{1, 2, 3},
		"db_mult": []float64{2}, "service": "app"}, cells)
	first, second := rep.Cells[0], rep.Cells[1]
	if first.Bottleneck != BottleneckConn {
		t.Errorf("bottleneck %q, want %s", first.Bottleneck, BottleneckConn)
	}
	if second.Status != results.StatusSkipped || second.Bottleneck != "" || !strings.HasPrefix(second.Ineligible, "skipped: pool 4") {
		t.Errorf("skipped cell: %+v", second)
	}
	m := matrixTable(rep, rep.PerCPU[0], MetricRPS)
	if got := m.Rows[1][1]; !strings.HasPrefix(got, "SKIPPED: pool 4") {
		t.Errorf("matrix shows %q for the skipped cell", got)
	}
}

// buildRun writes a run of cells under spec and builds its report.
func buildRun(t *testing.T, spec map[string]any, cells []fxCell) *Report {
	t.Helper()
	dir := t.TempDir()
	writeRun(t, dir, "run", spec, cells)
	return buildDir(t, dir)
}
