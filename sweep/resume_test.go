package sweep

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func TestDiffSpecs(t *testing.T) {
	t.Parallel()
	base := testSpec()
	base.DBDSN = "postgres://u:secret@h/db"
	saved, err := json.Marshal(base.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), "precision") || strings.Contains(string(saved), "min_duration") {
		t.Errorf("a spec without a precision saved the rule's keys: %s", saved)
	}
	if strings.Contains(string(saved), "secret") {
		t.Fatal("the saved spec holds the DSN password")
	}
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"same", func(*Spec) {}, ""},
		{"operational keys may change", func(s *Spec) { s.Retries, s.Keep, s.Repeat = 3, true, 2 }, ""},
		{"automatic repetitions may change", func(s *Spec) { s.RepeatAuto, s.MaxRepeat = true, 5 }, ""},
		{"cpus", func(s *Spec) { s.CPUs = []float64{1} }, "cpus (was [1,2], now [1])"},
		{"another password or host is the same spec", func(s *Spec) { s.DBDSN = "postgres://u:other@h2/db" }, ""},
		{"no database now", func(s *Spec) { s.DBDSN = "" }, "db_dsn (was set, now unset)"},
		{"a precision", func(s *Spec) { s.Precision, s.MinDuration = 0.02, Duration(time.Second) },
			`min_duration (was unset, now "1s"); precision (was unset, now 0.02)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := base
			tc.change(&s)
			diff, err := DiffSpecs(saved, true, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(diff, "; "); got != tc.want {
				t.Errorf("diff %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDone pins what a resume runs again: interrupted cells and cells
// without a record always, failed cells only with --retry-failed.
func TestDone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		status      results.Status // "": no result.json
		retryFailed bool
		want        bool
	}{
		{"no record", "", false, false},
		{"ok", results.StatusOK, false, true},
		{"ok with retry-failed", results.StatusOK, true, true},
		{"failed", results.StatusFailed, false, true},
		{"failed with retry-failed", results.StatusFailed, true, false},
		{"interrupted", results.StatusInterrupted, false, false},
		{"interrupted with retry-failed", results.StatusInterrupted, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.status != "" {
				rec := results.Record{Cell: results.CellInfo{ID: "cpu_1__web_1__db_2"}, Status: tc.status}
				if err := results.WriteJSONAtomic(filepath.Join(dir, results.ResultFile), rec); err != nil {
					t.Fatal(err)
				}
			}
			if got := done(dir, tc.retryFailed); got != tc.want {
				t.Errorf("done = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRunnerRetryFailed: a resume with RetryFailed runs the failed cell
// again and keeps the ok ones.
func TestRunnerRetryFailed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := testSpec()
	first := &Runner{Spec: spec, Dir: dir, Stack: &fakeStack{skewFor: "cpu_2__web_2__db_4"}, Driver: &fakeDriver{}}
	if sum, err := first.Run(t.Context()); err != nil || sum.Failed() != 1 {
		t.Fatalf("first run: err %v, %d failed; want 1 failed", err, sum.Failed())
	}
	for _, tc := range []struct {
		retry   bool
		skipped int
		applied []string
	}{
		{false, 4, nil},
		{true, 3, []string{"cpu_2__web_2__db_4"}},
	} {
		stack := &fakeStack{}
		sum, err := (&Runner{Spec: spec, Dir: dir, Stack: stack, Driver: &fakeDriver{}, RetryFailed: tc.retry}).Run(t.Context())
		if err != nil || sum.Skipped != tc.skipped || !reflect.DeepEqual(stack.applied, tc.applied) {
			t.Errorf("retry-failed %v: err %v, skipped %d, applied %v; want %d skipped, %v applied",
				tc.retry, err, sum.Skipped, stack.applied, tc.skipped, tc.applied)
		}
	}
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, "cpu_2__web_2__db_4", 1), results.ResultFile))
	if err != nil || rec.Status != results.StatusOK {
		t.Errorf("retried cell: status %s err %v, want ok", rec.Status, err)
	}
}
