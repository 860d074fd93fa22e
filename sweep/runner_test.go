package sweep

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// fakeStack applies configs in memory; cpuSkew makes the engine report a
// different CPU limit for one cell, as a stack that ignored the override.
type fakeStack struct {
	last    TargetConfig
	applied []string
	skewFor string
	watch   *fakeWatch // the current cell's
	// depsStarted counts StartDeps calls.
	depsStarted int
}

// answering is a target URL that answers every request (204), as a ready
// target does for the runner's one probe of the URL.
var answering = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}))

func (f *fakeStack) Apply(_ context.Context, cfg TargetConfig) error {
	f.last = cfg
	f.applied = append(f.applied, cfg.Labels[LabelCell])
	return os.WriteFile(filepath.Join(cfg.Dir, results.OverrideFile), []byte("services: {}\n"), 0o644)
}
func (f *fakeStack) WaitReady(context.Context, time.Duration) error { return nil }
func (f *fakeStack) ReadBack(context.Context) (results.Applied, error) {
	a := results.Applied{CPUs: f.last.CPUs, Env: f.last.Env, ContainerID: "c-" + f.last.Labels[LabelCell]}
	if f.last.Labels[LabelCell] == f.skewFor {
		a.CPUs = 99
	}
	return a, nil
}
func (f *fakeStack) Logs(context.Context, int) (string, error) { return "boom\n", nil }
func (f *fakeStack) Down(context.Context) error                { return nil }
func (f *fakeStack) StartDeps(context.Context, TargetConfig, time.Duration) error {
	f.depsStarted++
	return nil
}
func (f *fakeStack) Watch(context.Context) (StackWatch, error) {
	f.watch = &fakeWatch{changed: make(chan struct{})}
	return f.watch, nil
}

type fakeDriver struct {
	calls  int
	cancel func() // called on the nth measured run, if set
	at     int
}

func (d *fakeDriver) Name() string { return "fake" }
func (d *fakeDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	d.calls++
	if d.cancel != nil && d.calls == d.at {
		d.cancel()
		return results.Measurement{}, ctx.Err()
	}
	return results.Measurement{Requests: 100, RPS: 10, LatencyMS: results.Latency{P99: 5}}, nil
}

func testSpec() Spec {
	return Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", NameEnv: "N", URL: answering.URL, ReadyPath: "/health",
		ReadyTimeout: Duration(time.Second), Warmup: Duration(time.Second), Duration: Duration(time.Second),
		Load: LoadSpec{VUs: 3}, Driver: "builtin", Repeat: 1, Order: OrderGrid}
}

func TestRunnerWritesEveryCell(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: &fakeStack{skewFor: "cpu_2__web_2__db_4"}, Driver: &fakeDriver{}}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 4 || sum.Failed() != 1 {
		t.Fatalf("records %d failed %d, want 4 and 1", len(sum.Records), sum.Failed())
	}
	for _, c := range r.Spec.Cells() {
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, c.ID, 1), results.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Cell.ID != c.ID || rec.Load.VUs != 3 || rec.Load.Driver != "fake" {
			t.Errorf("record %+v does not match cell %s", rec.Cell, c.ID)
		}
		if c.ID == "cpu_2__web_2__db_4" {
			if rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "cpus 99, asked 2") {
				t.Errorf("skewed cell: status %s reason %q", rec.Status, rec.Reason)
			}
			if _, err := os.Stat(filepath.Join(results.CellDir(dir, c.ID, 1), results.TargetLog)); err != nil {
				t.Errorf("failed cell has no target.log: %v", err)
			}
			continue
		}
		if rec.Status != results.StatusOK || rec.Applied.Env["N"] != c.ID || rec.Applied.Env["W"] == "" {
			t.Errorf("cell %s: status %s applied %+v", c.ID, rec.Status, rec.Applied)
		}
	}
}

func TestRunnerInterruptAndResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	stack := &fakeStack{}
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: stack, Driver: &fakeDriver{cancel: cancel, at: 2}}
	sum, err := r.Run(ctx)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	if n := len(sum.Records); n != 2 || sum.Records[1].Status != results.StatusInterrupted {
		t.Fatalf("got %d records, last %+v", n, sum.Records[n-1].Status)
	}
	first := readFile(t, filepath.Join(results.CellDir(dir, sum.Records[0].Cell.ID, 1), results.ResultFile))

	stack2 := &fakeStack{}
	r2 := &Runner{Spec: testSpec(), Dir: dir, Stack: stack2, Driver: &fakeDriver{}}
	sum2, err := r2.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum2.Skipped != 1 || len(stack2.applied) != 3 || stack2.applied[0] != sum.Records[1].Cell.ID {
		t.Errorf("resume skipped %d, applied %v", sum2.Skipped, stack2.applied)
	}
	if again := readFile(t, filepath.Join(results.CellDir(dir, sum.Records[0].Cell.ID, 1), results.ResultFile)); again != first {
		t.Error("a finished cell's result.json changed on resume")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// failingDriver fails every measured run of one cell.
type failingDriver struct {
	fakeDriver
	failCell string
	runs     map[string]int
}

func (d *failingDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	id := filepath.Base(filepath.Dir(req.Dir))
	d.runs[id]++
	if id == d.failCell {
		return results.Measurement{}, errors.New("load driver crashed")
	}
	return results.Measurement{Requests: 1, RPS: 1}, nil
}

func TestRunnerRetriesAndMaxFailures(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.Retries = 2
	d := &failingDriver{failCell: "cpu_1__web_2__db_4", runs: map[string]int{}}
	sum, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: d}).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d.runs["cpu_1__web_2__db_4"] != 3 || d.runs["cpu_1__web_1__db_2"] != 1 || sum.Failed() != 1 {
		t.Errorf("runs %v, failed %d; want 3 attempts of the failing cell, 1 of others", d.runs, sum.Failed())
	}
	for _, rec := range sum.Records {
		if rec.Cell.ID == d.failCell && (rec.Attempts != 3 || !strings.Contains(rec.Reason, "crashed")) {
			t.Errorf("failing cell record: attempts %d reason %q", rec.Attempts, rec.Reason)
		}
	}

	spec.Retries, spec.MaxFailures = 0, 1
	d = &failingDriver{failCell: "cpu_1__web_1__db_2", runs: map[string]int{}}
	sum, err = (&Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: d}).Run(t.Context())
	if !errors.Is(err, ErrTooManyFailures) || len(sum.Records) != 1 {
		t.Errorf("max-failures: err %v after %d records, want ErrTooManyFailures after 1", err, len(sum.Records))
	}
}

// restartingStack reports, on every second read back, a new container
// (replaced) or the same one with a later start time (restarted in
// place), as when the target crashed and Docker replaced or restarted it.
type restartingStack struct {
	fakeStack
	inPlace bool
	reads   int
}

func (s *restartingStack) ReadBack(ctx context.Context) (results.Applied, error) {
	a, _ := s.fakeStack.ReadBack(ctx)
	s.reads++
	a.ContainerStartedAt = time.Date(2025, 1, 1, 3, 0, 0, 0, time.UTC)
	switch {
	case s.reads%2 == 1:
	case s.inPlace:
		a.ContainerStartedAt = a.ContainerStartedAt.Add(time.Second)
	default:
		a.ContainerID = "new"
	}
	return a, nil
}

func TestRunnerFailsCellWhoseTargetRestarted(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs = []float64{1}
	spec.WebMult = []float64{1}
	for _, tc := range []struct {
		inPlace bool
		want    string
	}{{false, "replaced since it was read back"}, {true, "restarted since it was read back"}} {
		stack := &restartingStack{inPlace: tc.inPlace}
		sum, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: stack, Driver: &fakeDriver{}}).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if rec := sum.Records[0]; rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, tc.want) {
			t.Errorf("status %s reason %q, want failed: %s", rec.Status, rec.Reason, tc.want)
		}
	}
}

// TestRunnerMeasureHook checks that Measure replaces the measured load:
// it runs after the cell is applied, its figures land in result.json, its
// error fails the cell, and a resume skips the finished cells.
func TestRunnerMeasureHook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	driver := &fakeDriver{}
	var seen []string
	hook := func(ctx context.Context, job Job, dir string, rec *results.Record) error {
		if rec.Applied.ContainerID != "c-"+job.Cell.ID {
			t.Errorf("%s: hook called before the cell was applied (applied %+v)", job.Cell.ID, rec.Applied)
		}
		seen = append(seen, job.Cell.ID)
		if job.Cell.ID == "cpu_2__web_4__db_8" {
			return errors.New("search broke")
		}
		rec.Measurement = results.Measurement{Requests: 7, RPS: 3.5}
		rec.SafeLimit = &results.SafeLimit{Model: "vus", Level: 12, FailsAt: 16}
		return nil
	}
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: &fakeStack{}, Driver: driver, Measure: hook}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 || driver.calls != 0 || sum.Failed() != 1 {
		t.Fatalf("hook saw %v, driver ran %d times, %d failed; want 4 cells, 0 driver runs, 1 failed", seen, driver.calls, sum.Failed())
	}
	for _, rec := range sum.Records {
		disk, err := results.ReadRecord(filepath.Join(results.CellDir(dir, rec.Cell.ID, 1), results.ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Cell.ID == "cpu_2__web_4__db_8":
			if disk.Status != results.StatusFailed || !strings.Contains(disk.Reason, "search broke") {
				t.Errorf("failing hook: status %s reason %q", disk.Status, disk.Reason)
			}
		case disk.Status != results.StatusOK || disk.Requests != 7 || disk.SafeLimit == nil || disk.SafeLimit.Level != 12:
			t.Errorf("%s: record on disk %+v, want ok with the hook's figures", rec.Cell.ID, disk)
		}
	}
	seen = nil
	sum, err = (&Runner{Spec: testSpec(), Dir: dir, Stack: &fakeStack{}, Driver: driver, Measure: hook}).Run(t.Context())
	if err != nil || sum.Skipped != 4 || len(seen) != 0 {
		t.Errorf("resume: err %v, skipped %d, hook ran for %v; want every cell skipped", err, sum.Skipped, seen)
	}
}
