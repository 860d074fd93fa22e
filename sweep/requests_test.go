package sweep

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestCheckErrors(t *testing.T) {
	t.Parallel()
	notFound := results.Measurement{Requests: 400, ErrorRate: 1,
		Ops: map[string]results.OpStats{
			"create": {Requests: 300, ErrorRate: 1},
			"read":   {Requests: 100, ErrorRate: 1},
		},
		Errors:       map[string]int64{"http_404": 400},
		ErrorSamples: map[string]results.ErrorSample{"create": {Status: 404, Class: "http_404", Body: "404 page\nnot found\n"}},
	}
	some := results.Measurement{Requests: 1000, ErrorRate: 0.03,
		Ops: map[string]results.OpStats{"read": {Requests: 1000, ErrorRate: 0.03}}, Errors: map[string]int64{"timeout": 30}}
	for _, tc := range []struct {
		name  string
		m     results.Measurement
		limit float64
		want  []string // parts of the error; nil: no error
	}{
		{"every request 404", notFound, 0.05, []string{"requests failed: 100.0% of 400 requests (over the run's bound of 5%)",
			`create 100.0% of 300 (first: 404 "404 page not found"), read 100.0% of 100`, "by class: http_404 400"}},
		{"all failed fails even at the loosest bound", notFound, 0.999, []string{"100.0% of 400"}},
		{"within the bound", some, 0.05, nil},
		{"over a stricter bound", some, 0.01, []string{"3.0% of 1000 requests (over the run's bound of 1%): read 3.0% of 1000; by class: timeout 30"}},
		{"no requests is not this check's", results.Measurement{}, 0.05, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckErrors(tc.m, tc.limit)
			if tc.want == nil {
				if err != nil {
					t.Errorf("error %v, want none", err)
				}
				return
			}
			if !errors.Is(err, ErrRequestsFailed) {
				t.Fatalf("error %v, want ErrRequestsFailed", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// notFoundDriver answers every measured request with 404 from the
// okFrom-th measured run on, ok before it (0: never ok).
type notFoundDriver struct {
	fakeDriver
	okUntil int
}

func (d *notFoundDriver) Run(ctx context.Context, req LoadRequest) (results.Measurement, error) {
	m, err := d.fakeDriver.Run(ctx, req)
	if req.Warmup || d.calls <= d.okUntil {
		return m, err
	}
	m.ErrorRate, m.Errors = 1, map[string]int64{"http_404": m.Requests}
	m.Ops = map[string]results.OpStats{"read": {Requests: m.Requests, ErrorRate: 1}}
	return m, err
}

// TestRunnerStopsWhenTheLoadDoesNotWork: cells whose requests all fail
// are failed with the cause, and the run stops after the first three,
// with the failure limit's error; a run whose first cell worked goes on.
func TestRunnerStopsWhenTheLoadDoesNotWork(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.WebMult = []float64{1, 2, 3} // 6 cells
	t.Run("first cells all fail", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		r := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{}, Driver: &notFoundDriver{}}
		sum, err := r.Run(t.Context())
		if !errors.Is(err, ErrTooManyFailures) || !errors.Is(err, ErrLoadDoesNotWork) {
			t.Fatalf("run: %v, want the failure limit's ErrLoadDoesNotWork", err)
		}
		if len(sum.Records) != FailFastCells {
			t.Fatalf("%d records, want the first %d", len(sum.Records), FailFastCells)
		}
		for _, rec := range sum.Records {
			onDisk, rerr := results.ReadRecord(filepath.Join(results.CellDir(dir, rec.Cell.ID, 1), results.ResultFile))
			if rerr != nil {
				t.Fatal(rerr)
			}
			if onDisk.Status != results.StatusFailed || onDisk.Cause != results.CauseRequests ||
				!strings.Contains(onDisk.Reason, "http_404") || onDisk.MaxErrors != DefaultMaxErrors {
				t.Errorf("%s: %s cause %q max errors %v (%s); want failed on its requests at the default bound",
					rec.Cell.ID, onDisk.Status, onDisk.Cause, onDisk.MaxErrors, onDisk.Reason)
			}
		}
		if !strings.Contains(err.Error(), "the first 3 cells all failed on their requests") {
			t.Errorf("error %q does not say why the run stopped", err)
		}
	})
	t.Run("a cell that worked first", func(t *testing.T) {
		t.Parallel()
		r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &notFoundDriver{okUntil: 1}}
		sum, err := r.Run(t.Context())
		if err != nil || len(sum.Records) != 6 || sum.Failed() != 5 {
			t.Fatalf("run: %v, %d records, %d failed; want every cell run, 5 failed", err, len(sum.Records), sum.Failed())
		}
	})
}
