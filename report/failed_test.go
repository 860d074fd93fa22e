package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestFailedLimitIsStillShown(t *testing.T) {
	t.Parallel()
	run := &results.Run{RunID: "r", Cells: []results.RunCell{
		{CellInfo: results.CellInfo{ID: "cpu_1__web_1__db_2", CPUs: 1, WebThreads: 1, DBPool: 2, WebMult: 1, DBMult: 2,
			Mults: [][2]float64{{1, 2}}}, Reps: []results.Rep{{Record: results.Record{Status: results.StatusOK,
			Measurement: results.Measurement{RPS: 10, LatencyMS: results.Latency{P99: 5}}}}}},
		{CellInfo: results.CellInfo{ID: "cpu_2__web_2__db_4", CPUs: 2, WebThreads: 2, DBPool: 4, WebMult: 1, DBMult: 2,
			Mults: [][2]float64{{1, 2}}}, Reps: []results.Rep{{Record: results.Record{Status: results.StatusFailed,
			Reason: "ready: target container exited (code 3)"}}}},
	}}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteTerminal(&out, rep, MetricRPS); err != nil {
		t.Fatal(err)
	}
	if want := "CPU 2 has no matrix: no cell finished ok; cpu_2__web_2__db_4: failed: ready: target container exited (code 3)."; !strings.Contains(unwrapped(out.String()), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}

// unwrapped joins the lines the terminal report wrapped (a continuation
// starts with two spaces) back into one.
func unwrapped(s string) string { return strings.ReplaceAll(s, "\n  ", " ") }
