package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestWriteRepetitionsShowsSpread(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for rep, rps := range map[int]float64{1: 100, 2: 110, 3: 90} {
		cd := results.CellDir(dir, "cpu_1__web_1__db_2", rep)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			t.Fatal(err)
		}
		rec := results.Record{Cell: results.CellInfo{ID: "cpu_1__web_1__db_2"}, Status: results.StatusOK, Measurement: results.Measurement{RPS: rps,
			LatencyMS: results.Latency{P99: 10}}}
		if err := results.WriteJSONAtomic(filepath.Join(cd, results.ResultFile), rec); err != nil {
			t.Fatal(err)
		}
	}
	if n := sweep.NextRep(dir, "cpu_1__web_1__db_2"); n != 4 {
		t.Errorf("next repetition %d, want 4", n)
	}
	var out bytes.Buffer
	if err := WriteRepetitions(&out, dir, "cpu_1__web_1__db_2"); err != nil {
		t.Fatal(err)
	}
	// rps 100, 110, 90: mean 100, sd 10 → 10 %; the newest (90) is -14.3 % from the mean of 100 and 110.
	for _, want := range []string{"r3    ok", "rps spread 10.0%", "p99 spread 0.0%", "by -14.3% rps, +0.0% p99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
