package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// assertNothingRecorded fails when dir holds a cells folder: an aborted
// run records nothing.
func assertNothingRecorded(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, results.CellsDir)); !os.IsNotExist(err) {
		t.Errorf("%s exists after an abort before any cell (%v)", results.CellsDir, err)
	}
}

// TestRunnerPrepareErrorAbortsTheRun: Prepare runs once the services the
// target needs are up and before the target starts; its error stops the
// run before any cell is recorded.
func TestRunnerPrepareErrorAbortsTheRun(t *testing.T) {
	t.Parallel()
	boom := errors.New("db at 127.0.0.1:5432 refused the connection: password authentication failed")
	dir, stack := t.TempDir(), &fakeStack{}
	var depsFirst bool
	r := &Runner{Spec: testSpec(), Dir: dir, Stack: stack, Driver: &fakeDriver{},
		Prepare: func(context.Context) error { depsFirst = stack.depsStarted == 1; return boom }}
	sum, err := r.Run(t.Context())
	if !errors.Is(err, boom) || len(sum.Records) != 0 {
		t.Errorf("err %v, %d records; want the Prepare error and no record", err, len(sum.Records))
	}
	if !depsFirst || len(stack.applied) != 0 {
		t.Errorf("Prepare ran after StartDeps: %v; the target was applied %d times, want 0", depsFirst, len(stack.applied))
	}
	assertNothingRecorded(t, dir)
}

// TestRunnerProbesTheURLOnce: a URL where nothing listens once the target
// is ready stops the run as bad input naming url, with the kind of
// failure as data; nothing is recorded. A URL that answers is probed once
// per start of the stack, and the dependencies start once.
func TestRunnerProbesTheURLOnce(t *testing.T) {
	t.Parallel()
	dir, stack := t.TempDir(), &fakeStack{}
	spec := testSpec()
	spec.URL = "http://" + deadAddr(t)
	sum, err := (&Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &fakeDriver{}}).Run(t.Context())
	var bad *BadInputError
	var probe *ProbeError
	if !errors.Is(err, ErrBadInput) || !errors.As(err, &bad) || bad.Field != "url" || !errors.As(err, &probe) ||
		probe.Kind != ConnectRefused || len(sum.Records) != 0 {
		t.Fatalf("err %v (%d records), want bad input naming url with a refused probe and no record", err, len(sum.Records))
	}
	if len(stack.applied) != 1 {
		t.Errorf("target applied %d times, want once before the probe", len(stack.applied))
	}
	assertNothingRecorded(t, dir)

	stack = &fakeStack{}
	sum, err = (&Runner{Spec: testSpec(), Dir: t.TempDir(), Stack: stack, Driver: &fakeDriver{}}).Run(t.Context())
	if err != nil || len(sum.Records) != 4 || stack.depsStarted != 1 {
		t.Errorf("err %v, %d records, dependencies started %d times; want 4 cells on one start", err, len(sum.Records), stack.depsStarted)
	}
}

// TestRunnerStartsEachVariantsDependencies: with variants, each stack's
// dependencies start on its first cell, and again after it was taken
// down for another variant.
func TestRunnerStartsEachVariantsDependencies(t *testing.T) {
	t.Parallel()
	a, b := &fakeStack{}, &fakeStack{}
	spec := testSpec()
	spec.Variants = []Variant{{Name: "a"}, {Name: "b"}}
	cells := spec.Cells()
	var jobs []Job
	for _, v := range []string{"a", "b", "a"} {
		for _, c := range cells {
			if c.Extras.Variant == v {
				jobs = append(jobs, Job{Cell: c, Rep: len(jobs) + 1})
				break
			}
		}
	}
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: a, Variants: map[string]Stack{"a": a, "b": b}, Jobs: jobs, Driver: &fakeDriver{}}
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if a.depsStarted != 2 || b.depsStarted != 1 {
		t.Errorf("dependencies started %d times on a and %d on b, want 2 and 1", a.depsStarted, b.depsStarted)
	}
}
