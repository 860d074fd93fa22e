package limit

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// testdata/stacks holds searches recorded by `make study-infra` on a
// 2-core shared host (run --find-limit, 1 CPU, web-mult 2,4, db-mult 2):
// the PHP stack's two cells with every level's record, the Node.js
// stack's two limit.json files with the records of the best cell's last
// two levels only. Their limit.json files were written before the
// host-cpu rule: each names the bottleneck none.

func loadStack(t *testing.T, name string) StackLimit {
	t.Helper()
	s, err := LoadStack(StackRun{Name: name, Dir: filepath.Join("testdata", "stacks", name)}, "db")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadStackReadsLevelsAgainFromTheirRecords(t *testing.T) {
	t.Parallel()
	php := loadStack(t, "php")
	best := filepath.Join("testdata", "stacks", "php", "cells", "cpu_1__web_4__db_8", "r1")
	onDisk, err := readFile(filepath.Join(best, FileName))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case php.Dir != best || php.Searched != 2:
		t.Fatalf("best search %s of %d, want %s of 2 (web 2 held no level, web 4 held 4)", php.Dir, php.Searched, best)
	case php.File.SafeLimit == nil || php.File.SafeLimit.Level != 4:
		t.Fatalf("safe limit %+v, want 4", php.File.SafeLimit)
	case onDisk.Bottleneck == nil || onDisk.Bottleneck.Name != BottleneckNone:
		t.Fatalf("the recorded limit.json names %+v; the test wants one written before host-cpu", onDisk.Bottleneck)
	}
	rec, err := results.ReadRecord(filepath.Join(best, "levels", "vus-5", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	at := php.At
	switch {
	case php.File.Bottleneck == nil || php.File.Bottleneck.Name != BottleneckHostCPU || php.File.Bottleneck.Level != 5:
		t.Errorf("bottleneck %+v, want host-cpu at 5, named again from the records", php.File.Bottleneck)
	case at == nil || at.Level != 5 || at.SLOOK || at.Why != onDisk.Levels[1].Why:
		t.Errorf("evidence level %+v, want 5 as limit.json judged it", at)
	case at.Signals.HostCPUPressure == nil || *at.Signals.HostCPUPressure != rec.Host.CPUPressure.SomeShare:
		t.Errorf("host pressure %v, want the record's %v", at.Signals.HostCPUPressure, rec.Host.CPUPressure.SomeShare)
	case at.Signals.Pooler == nil || at.Signals.Pooler.CPUCores == nil ||
		*at.Signals.Pooler.CPUCores != rec.Resources["pgbouncer"].CPUCoresMean ||
		at.Signals.Pooler.ClientsWaitingPeak != rec.Pooler.ClWaitingPeak:
		t.Errorf("pooler %+v, want pgbouncer's container and pool figures of the record", at.Signals.Pooler)
	case at.Signals.DBPool != 8 || *at.DBSessionsPeak != rec.DB.Sessions.TotalPeak:
		t.Errorf("pool allows %d, sessions peak %d; want PgBouncer's pool 8 and %d", at.Signals.DBPool,
			*at.DBSessionsPeak, rec.DB.Sessions.TotalPeak)
	}
	for i, l := range php.File.Levels {
		if l.Level != onDisk.Levels[i].Level || l.Step != onDisk.Levels[i].Step || l.SLOOK != onDisk.Levels[i].SLOOK {
			t.Errorf("level %d: %+v, want its level, step and verdict as limit.json has them: %+v", i, l, onDisk.Levels[i])
		}
	}
}

// TestLoadStackPoolPerWorkerAndMissingRecords: Node.js's pool is per
// worker (the run's pool_per_web), so the database may see web × pool
// sessions; levels whose record is gone stay as limit.json has them.
func TestLoadStackPoolPerWorkerAndMissingRecords(t *testing.T) {
	t.Parallel()
	node := loadStack(t, "node")
	if node.File.SafeLimit == nil || node.File.SafeLimit.Level != 31 || node.File.Cell.WebThreads != 4 {
		t.Fatalf("best %s safe limit %+v, want web 4 at 31", node.File.Cell.ID, node.File.SafeLimit)
	}
	if !node.File.Spec.PoolPerWeb || node.At == nil || node.At.Level != 32 || node.At.Signals.DBPool != 4*8 {
		t.Errorf("at %+v: want level 32 with 4 workers × pool 8 = 32 sessions allowed", node.At)
	}
	onDisk, err := readFile(filepath.Join(node.Dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	// vus-4 has no record here: the level is limit.json's own.
	if got, want := node.File.Levels[0], onDisk.Levels[0]; got.Level != 4 || got.Signals.HostCPUPressure != nil ||
		*got.TargetCPUPct != *want.TargetCPUPct {
		t.Errorf("level 4 without its record: %+v, want limit.json's %+v", got, want)
	}
	if node.At.Signals.HostCPUPressure == nil {
		t.Errorf("level 32 has its record: want its host pressure")
	}
}

func TestWriteStacks(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteStacks(&buf, []StackLimit{loadStack(t, "php"), loadStack(t, "node")}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "ranking by safe limit: node 31 > php 4\n") || strings.Contains(out, "not comparable") {
		t.Errorf("want node ranked above php, and nothing not comparable:\n%s", out)
	}
	testenv.Golden(t, filepath.Join("testdata", "stacks.golden"), buf.Bytes())
}

// TestWriteStacksSaysWhatIsNotComparable: searches at another CPU limit
// or SLO are named, and a stack where no level failed is ranked ≥.
func TestWriteStacksSaysWhatIsNotComparable(t *testing.T) {
	t.Parallel()
	php, node := loadStack(t, "php"), loadStack(t, "node")
	node.File.Cell.CPUs = 2
	node.File.SLO = SLO{{Metric: "p99", Bound: 200}}
	node.File.Bottleneck = nil
	var buf bytes.Buffer
	if err := WriteStacks(&buf, []StackLimit{php, node}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"not comparable: different CPU limits (php 1, node 2)\n",
		"not comparable: different SLOs (php success>=99%,p99<=500ms, node p99<=200ms)\n",
		"ranking by safe limit: node ≥31 > php 4\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestParseStackRuns(t *testing.T) {
	t.Parallel()
	got, err := ParseStackRuns([]string{"php=runs/a", " go = runs/b "})
	if err != nil || len(got) != 2 || got[0] != (StackRun{"php", "runs/a"}) || got[1] != (StackRun{"go", "runs/b"}) {
		t.Errorf("ParseStackRuns = %+v, %v", got, err)
	}
	for _, args := range [][]string{nil, {"php"}, {"=runs/a"}, {"php="}, {"php=a", "php=b"}} {
		_, err := ParseStackRuns(args)
		var bad *sweep.BadInputError
		if !errors.As(err, &bad) || bad.Field != "stacks" {
			t.Errorf("ParseStackRuns(%q) = %v, want bad input naming stacks", args, err)
		}
	}
}

func TestLoadStackRefusesWhatIsNoLimitRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, FileName), []byte(`{"status": "done"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]string{"missing": filepath.Join(dir, "nope"), "empty": dir, "broken": broken} {
		_, err := LoadStack(StackRun{Name: name, Dir: d}, "db")
		var bad *sweep.BadInputError
		if !errors.As(err, &bad) || bad.Field != "stacks" || !strings.Contains(err.Error(), d) {
			t.Errorf("%s: %v, want bad input naming stacks and %s", name, err, d)
		}
	}
}

// TestBetterSearch: the highest safe limit wins; on a tie fewer web
// threads, then a smaller pool.
func TestBetterSearch(t *testing.T) {
	t.Parallel()
	file := func(level, web, pool int) File {
		f := File{Cell: results.CellInfo{WebThreads: web, DBPool: pool}}
		if level > 0 {
			f.SafeLimit = &SafeLimit{Level: level}
		}
		return f
	}
	for _, tc := range []struct {
		a, b File
		want bool
	}{
		{file(10, 4, 8), file(8, 2, 4), true},
		{file(0, 2, 4), file(4, 4, 8), false},
		{file(8, 2, 8), file(8, 4, 4), true},
		{file(8, 2, 4), file(8, 2, 8), true},
		{file(8, 2, 8), file(8, 2, 4), false},
	} {
		if got := better(tc.a, tc.b); got != tc.want {
			t.Errorf("better(%+v, %+v) = %v, want %v", tc.a.Cell, tc.b.Cell, got, tc.want)
		}
	}
}

// TestLoadStackOfOneSearch: a sweep limit run keeps limit.json and
// levels/ in its own directory, as a cell repetition of run --find-limit
// does.
func TestLoadStackOfOneSearch(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("testdata", "stacks", "php", "cells", "cpu_1__web_4__db_8", "r1")
	s, err := LoadStack(StackRun{Name: "php", Dir: dir}, "db")
	switch {
	case err != nil:
		t.Fatal(err)
	case s.Dir != dir || s.Searched != 1 || s.File.Bottleneck == nil || s.File.Bottleneck.Name != BottleneckHostCPU:
		t.Errorf("%s: %d searched, bottleneck %+v; want the one search, host-cpu", s.Dir, s.Searched, s.File.Bottleneck)
	}
}
