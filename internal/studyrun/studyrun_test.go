package studyrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func table(t *testing.T) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "report", "testdata", "game-of-pools-summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestWriteReadsBackAsTheStudy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Write(dir, table(t), StudyParams(4*time.Second)); err != nil {
		t.Fatal(err)
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Cells) != 80 || len(run.Missing) != 0 || run.RunID != RunID {
		t.Fatalf("%d cells, %d missing, id %q", len(run.Cells), len(run.Missing), run.RunID)
	}
	// The study's best RPS at 8 CPUs: web 12, pool 30, 5684.44 RPS, p99 23.76 ms.
	for _, c := range run.Cells {
		if c.ID != "cpu_8__web_12__db_30" {
			continue
		}
		r := c.Reps[0]
		if r.RPS != 5684.44 || r.LatencyMS.P99 != 23.76 || r.Requests != 1705716 || r.Load.VUs != 24 ||
			r.PhasesS["apply"] != 4 || r.PhasesS["warmup"] != 30 || r.PhasesS["measure"] != 300 || r.DurationS != 300 {
			t.Errorf("record %+v", r.Record)
		}
		if c.Mults[0] != [2]float64{1.5, 2.5} {
			t.Errorf("multipliers %v, want 1.5 × 2.5", c.Mults)
		}
		return
	}
	t.Error("cpu_8__web_12__db_30 not in the run")
}

func TestRecordsWithoutTimings(t *testing.T) {
	t.Parallel()
	recs, err := Records(table(t), Params{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 80 || recs[0].PhasesS != nil || recs[0].DurationS != 300 {
		t.Errorf("%d records, first %+v", len(recs), recs[0])
	}
}

func TestRecordsRejectABadTable(t *testing.T) {
	t.Parallel()
	head := "CPU Limit,Web Threads,DB Pool Size,Avg RPS,P99 Latency (ms),P95 Latency (ms),Avg Latency (ms),Total Requests\n"
	cases := map[string]string{
		"short row":     head + "2,2,3,1423.86\n",
		"too few cells": head + "2,2,3,1423.86,6.02,N/A,N/A,427248\n",
		"not a number":  head + strings.Repeat("2,2,3,fast,6.02,N/A,N/A,1\n", 1),
	}
	for name, body := range cases {
		if _, err := Records(strings.NewReader(body), Params{}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
