package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// cellOf is a run's cell at cpus CPUs and web multiplier web with reps.
func cellOf(cpus, web float64, reps ...results.Rep) results.RunCell {
	id := "cpu_" + num(cpus) + "__web_" + num(web*cpus) + "__db_" + num(2*web*cpus)
	return results.RunCell{CellInfo: results.CellInfo{ID: id, CPUs: cpus, WebThreads: int(web * cpus), DBPool: int(2 * web * cpus),
		WebMult: web, DBMult: 2, Mults: [][2]float64{{web, 2}}}, Reps: reps}
}

// TestNoMatrixSaysWhy: a run whose report has no matrix says what
// happened, from the records: cells that finished ok but met the SLO at
// no level are not "no cell finished ok".
func TestNoMatrixSaysWhy(t *testing.T) {
	t.Parallel()
	slo := "success>=99%,p99<=20ms"
	for _, tc := range []struct {
		name   string
		cells  []results.RunCell
		want   []string
		refuse string
	}{
		{"no level met the SLO", []results.RunCell{
			cellOf(1, 1, okRep(300, 45, 0, limited(0, 8, "target-cpu"))),
			cellOf(1, 2, okRep(310, 40, 0, limited(0, 8, "pool")), okRep(320, 41, 0, limited(0, 8, "pool"))),
		}, []string{"every cell ran and none met the SLO " + slo + " at any level", "the lowest level tried, vus=8, failed"}, "finished"},
		{"every cell failed", []results.RunCell{
			cellOf(1, 1, failedRep("ready: target not ready after 120s")),
			cellOf(1, 2, failedRep("compose up app: exit 1")),
		}, []string{"no cell finished ok", "cpu_1__web_1__db_2: failed: ready: target not ready after 120s", "cpu_1__web_2__db_4: failed: compose up app"}, "SLO"},
		{"the others met no level", []results.RunCell{
			cellOf(1, 1, failedRep("ready: target not ready after 120s")),
			cellOf(1, 2, okRep(310, 40, 0, limited(0, 8, "pool"))),
		}, []string{"1 of 2 cells finished ok and none met the SLO " + slo + " at any level", "cpu_1__web_1__db_2: failed: ready"}, "every cell ran"},
		{"errors over the bound", []results.RunCell{
			cellOf(1, 1, okRep(300, 18, 0.2)),
		}, []string{"no cell that finished ok may win", "cpu_1__web_1__db_2: error rate 20.00 %"}, "no cell finished ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Build(&results.Run{RunID: "r", Cells: tc.cells}, DefaultOptions())
			if err == nil || !IsInput(err) {
				t.Fatalf("Build: %v, want an input error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Build: %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), tc.refuse) {
				t.Errorf("Build: %q says %q", err, tc.refuse)
			}
		})
	}
}

// TestFailedLimitIsStillShown: a CPU limit without a matrix beside one
// with a matrix is still shown, saying why it has none.
func TestFailedLimitIsStillShown(t *testing.T) {
	t.Parallel()
	fine := cellOf(1, 1, okRep(10, 5, 0))
	for _, tc := range []struct {
		name string
		cpu2 results.RunCell
		want string
	}{
		{"failed", cellOf(2, 1, failedRep("ready: target container exited (code 3)")),
			"CPU 2 has no matrix: no cell finished ok; cpu_2__web_2__db_4: failed: ready: target container exited (code 3)."},
		{"no level met the SLO", cellOf(2, 1, okRep(10, 50, 0, limited(0, 4, "pool"))),
			"CPU 2 has no matrix: every cell ran and none met the SLO success>=99%,p99<=20ms at any level: the lowest level tried, vus=4, failed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Build(&results.Run{RunID: "r", Cells: []results.RunCell{fine, tc.cpu2}}, DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := WriteTerminal(&out, rep, MetricRPS); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.ReplaceAll(out.String(), "\n  ", " "), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, out.String())
			}
		})
	}
}
