package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func testSpec() sweep.Spec {
	return sweep.Spec{CPUs: []float64{1, 2}, WebMult: []float64{1, 2}, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", URL: "http://127.0.0.1:1", ReadyPath: "/health", ReadyTimeout: sweep.Duration(time.Second),
		Warmup: sweep.Duration(time.Second), Duration: sweep.Duration(time.Minute), Load: sweep.LoadSpec{VUs: 3},
		Driver: "builtin", Repeat: 1, Order: sweep.OrderGrid, Compose: []string{"compose.yaml"}}
}

// savedRun writes sweep.json of spec into a new run directory, with the
// first cell's r1 done.
func savedRun(t *testing.T, spec sweep.Spec) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sweep.NewMeta("r1", "test", spec).Write(dir); err != nil {
		t.Fatal(err)
	}
	c := spec.Cells()[0]
	if err := os.MkdirAll(results.CellDir(dir, c.ID, 1), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func badField(err error) string {
	var bad *sweep.BadInputError
	if !errors.As(err, &bad) {
		return ""
	}
	return bad.Field
}

func TestSavedSpecAndAgain(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.DBDSN = "postgres://u:old@db/app"
	dir := savedRun(t, spec)
	got, err := SavedSpec(SavedRun{Dir: dir, DBDSN: "postgres://u:new@db2/app", PoolerDSN: "postgres://u:p@bouncer/app"})
	if err != nil || got.Out != dir || got.DBDSN != "postgres://u:new@db2/app" || got.PoolerDSN != "postgres://u:p@bouncer/app" ||
		len(got.Cells()) != len(spec.Cells()) {
		t.Fatalf("SavedSpec = out %q, DSNs %q %q, %d cells, %v; want the run's spec with the new DSNs", got.Out, got.DBDSN, got.PoolerDSN, len(got.Cells()), err)
	}
	if _, err := SavedSpec(SavedRun{Dir: filepath.Join(dir, "nope")}); badField(err) != "run_dir" {
		t.Errorf("no run: %v, want bad input of run_dir", err)
	}
	first := spec.Cells()[0].ID
	_, job, err := Again(SavedRun{Dir: dir, DBDSN: "postgres://u:new@db2/app"}, first)
	if err != nil || job.Cell.ID != first || job.Rep != 2 {
		t.Errorf("Again = %s r%d, %v; want %s r2 (r1 is there)", job.Cell.ID, job.Rep, err, first)
	}
	// an unknown cell is said before the missing DSN
	if _, _, err := Again(SavedRun{Dir: dir}, "cpu_9__web_9__db_9"); badField(err) != "cell" {
		t.Errorf("unknown cell: %v, want bad input of cell", err)
	}
	if _, _, err := Again(SavedRun{Dir: dir}, first); badField(err) != "db_dsn" {
		t.Errorf("no DSN for a run that sampled one: %v, want bad input of db_dsn", err)
	}
	inter := testSpec()
	inter.Schedule, inter.RoundsAuto = sweep.ScheduleInterleaved, true
	if _, _, err := Again(SavedRun{Dir: savedRun(t, inter)}, first); badField(err) != "schedule" {
		t.Errorf("a rerun of an interleaved run's cell: %v, want bad input of schedule", err)
	}
}

func TestFromRunNarrowsToTheCell(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.FindLimit = &sweep.FindLimit{SLO: "p99<=20ms", Start: 1, Max: 10, Factor: 2, MaxSteps: 3}
	dir := savedRun(t, spec)
	want := spec.Cells()[3]
	got, cell, err := FromRun(SavedRun{Dir: dir}, want.ID, func(s *sweep.Spec) { s.Duration = sweep.Duration(time.Second) })
	if err != nil || cell.ID != want.ID || got.FindLimit != nil || got.Duration.Std() != time.Second {
		t.Fatalf("FromRun = %s, search %v, duration %s, %v; want %s, no search, 1s", cell.ID, got.FindLimit, got.Duration.Std(), err, want.ID)
	}
	if cells := got.Cells(); len(cells) != 1 || cells[0].ID != want.ID {
		t.Errorf("the narrowed spec has cells %v, want only %s", cells, want.ID)
	}
	if _, _, err := FromRun(SavedRun{Dir: filepath.Join(dir, "nope")}, want.ID, nil); badField(err) != "from" {
		t.Errorf("no run: %v, want bad input of from", err)
	}
}

func TestCheckSpecIsTheFirstCellBriefly(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.Repeat, spec.Retries, spec.Warmup = 3, 2, sweep.Duration(time.Minute)
	check, job, err := CheckSpec(spec, "/tmp/x")
	if err != nil || job.Cell.ID != spec.Cells()[0].ID || job.Rep != 1 || check.Out != "/tmp/x" || check.Repeat != 1 ||
		check.Retries != 0 || check.Warmup.Std() != 2*time.Second || check.Duration.Std() != 5*time.Second {
		t.Errorf("CheckSpec = %+v, job %+v, %v; want the first cell once, 2s + 5s, into /tmp/x", check, job, err)
	}
	spec.Swarm, spec.Parallel, spec.URL = true, 3, "http://{node}:18080"
	if check, _, _ := CheckSpec(spec, "/tmp/x"); check.Parallel != 1 || check.Validate() != nil {
		t.Errorf("--parallel 3: the check runs %d lane(s) (%v), want one, on the first lane's node", check.Parallel, check.Validate())
	}
	spec.CPUs = nil
	if _, _, err := CheckSpec(spec, "/tmp/x"); badField(err) != "cpus" {
		t.Errorf("empty grid: %v, want bad input of cpus", err)
	}
}

// TestOpenRefusesBeforeStartingAnything: a spec that does not validate,
// or a grid above the limits without AllowLarge, is bad input before a
// driver, a stack or a directory is made.
func TestOpenRefusesBeforeStartingAnything(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	spec := testSpec()
	spec.Out = out
	spec.Service = ""
	if _, err := Open(t.Context(), spec, Options{}); badField(err) != "service" {
		t.Errorf("no service: %v, want bad input of service", err)
	}
	spec = testSpec()
	spec.Out, spec.Duration = out, sweep.Duration(100*time.Hour)
	if _, err := Open(t.Context(), spec, Options{}); badField(err) != "allow_large" {
		t.Errorf("a 400 h grid: %v, want bad input of allow_large", err)
	}
	spec = testSpec()
	spec.Out, spec.Schedule, spec.RoundsAuto, spec.Kubernetes = out, sweep.ScheduleInterleaved, true, true
	spec.Manifests, spec.LoadImage, spec.Parallel = []string{"k.yaml"}, "sweep-drive:1", 2
	if _, err := Open(t.Context(), spec, Options{}); badField(err) != "parallel" {
		t.Errorf("an interleaved schedule in lanes on Kubernetes: %v, want bad input of parallel", err)
	}
	spec = testSpec()
	spec.Out, spec.Swarm, spec.Parallel = out, true, 1
	if _, err := OpenLimit(t.Context(), spec, Options{}); badField(err) != "parallel" {
		t.Errorf("a safe-limit search with --parallel: %v, want bad input of parallel", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input created %s (%v)", out, err)
	}
}

// TestCheckRunsTheFirstCellAndReadsItBack: a Check's session is the
// cut-down spec with the one job and the generator check beside the
// caller's options; Result reads back the record that session wrote and
// the comparison it was given, and Remove takes the directory away.
func TestCheckRunsTheFirstCellAndReadsItBack(t *testing.T) {
	t.Parallel()
	chk, err := NewCheck(testSpec())
	if err != nil {
		t.Fatal(err)
	}
	s, o := chk.Spec(), chk.Options(Options{K6: "k6path"})
	if o.K6 != "k6path" || len(o.Jobs) != 1 || o.CheckGenerator == nil || s.Duration.Std() != 5*time.Second {
		t.Fatalf("the check's session gets k6 %q, jobs %v, duration %s; want the caller's options, one job, 5s", o.K6, o.Jobs, s.Duration.Std())
	}
	job := o.Jobs[0]
	cd := results.CellDir(s.Out, job.Cell.ID, job.Rep)
	if err := os.MkdirAll(cd, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := results.Record{Cell: job.Cell.Info(), Repetition: 1, Status: results.StatusOK, Measurement: results.Measurement{RPS: 42}}
	if err := o.CheckGenerator(sweep.GeneratorCheck{Limited: true}); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSONAtomic(filepath.Join(cd, results.ResultFile), rec); err != nil {
		t.Fatal(err)
	}
	got, err := chk.Result()
	if err != nil || got.Record.RPS != 42 || got.Duration != 5*time.Second || got.Generator == nil || !got.Generator.Limited {
		t.Fatalf("Result = %+v, %v; want the record of 42 rps, 5s and the generator check", got, err)
	}
	if err := chk.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Out); !os.IsNotExist(err) {
		t.Errorf("the check's directory %s is left (%v)", s.Out, err)
	}
	if _, err := chk.Result(); err == nil || !strings.HasPrefix(err.Error(), "check: ") {
		t.Errorf("Result with no record = %v, want an error after check:", err)
	}
}
