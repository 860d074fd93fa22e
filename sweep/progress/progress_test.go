package progress

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestLinesOffATerminal: off a terminal there is no bar, only one line
// per finished job: time, count, cell and repetition, status with the
// figures (or the reason's first line), and an ETA once a cell has taken
// its time.
func TestLinesOffATerminal(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := New(&out)
	p.Begin(3, 1)
	job := sweep.Job{Cell: sweep.Cell{ID: "cpu_1__web_1__db_2"}, Rep: 1}
	p.Phase(job, "apply")
	p.Phase(job, "measure")
	ok := results.Record{Status: results.StatusOK, Measurement: results.Measurement{RPS: 123.45, LatencyMS: results.Latency{P99: 6.5}}}
	p.Done(job, ok)
	p.Phase(job, "apply")
	p.Done(sweep.Job{Cell: job.Cell, Rep: 2}, results.Record{Status: results.StatusFailed, Reason: "ready: timeout\nmore"})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per finished job:\n%s", len(lines), out.String())
	}
	want := []*regexp.Regexp{
		regexp.MustCompile(`^\d\d:\d\d:\d\d \[2/3\] cpu_1__web_1__db_2 r1 ok rps=123\.5 p99=6\.50ms errors=0\.00%, ETA \S+$`),
		regexp.MustCompile(`^\d\d:\d\d:\d\d \[3/3\] cpu_1__web_1__db_2 r2 failed ready: timeout …, ETA \S+$`),
	}
	for i, re := range want {
		if !re.MatchString(lines[i]) {
			t.Errorf("line %d = %q, want %s", i+1, lines[i], re)
		}
	}
}
