package sweep

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestCheckApplied(t *testing.T) {
	t.Parallel()
	asked := TargetConfig{CPUs: 1.5, Memory: "256m", Env: map[string]string{"W": "3", "P": "6"}}
	for _, tc := range []struct {
		name string
		cfg  TargetConfig
		got  results.Applied
		want string // "" when the target runs as asked
	}{
		{"as asked", asked,
			results.Applied{CPUs: 1.5, MemoryBytes: 256 << 20, Env: map[string]string{"W": "3", "P": "6"}}, ""},
		{"cpus within 1e-6", asked,
			results.Applied{CPUs: 1.5000001, MemoryBytes: 256 << 20, Env: map[string]string{"W": "3", "P": "6"}}, ""},
		{"no memory asked, any reported", TargetConfig{CPUs: 1, Env: map[string]string{}},
			results.Applied{CPUs: 1, MemoryBytes: 1 << 30}, ""},
		{"memory one byte off", asked,
			results.Applied{CPUs: 1.5, MemoryBytes: 256<<20 + 1, Env: map[string]string{"W": "3", "P": "6"}},
			"target runs with memory 268435457 bytes, asked 256m"},
		{"memory limit missing", asked,
			results.Applied{CPUs: 1.5, Env: map[string]string{"W": "3", "P": "6"}},
			"target runs with memory 0 bytes, asked 256m"},
		{"cpus and env off, sorted", asked,
			results.Applied{CPUs: 2, MemoryBytes: 256 << 20, Env: map[string]string{"W": "3", "P": "4"}},
			`target runs with P="4", asked "6", cpus 2, asked 1.5`},
		{"env missing", asked,
			results.Applied{CPUs: 1.5, MemoryBytes: 256 << 20, Env: map[string]string{"P": "6"}},
			`target runs with W="", asked "3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if err := checkApplied(tc.cfg, tc.got, []string{"W", "P"}); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("checkApplied = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDroppedIterationsWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		dropped int64
		want    []string
	}{
		{"none dropped", 0, nil},
		{"one dropped", 1, []string{"1 iterations were dropped: the open model's rate was not offered in full " +
			"(raise --max-vus, or the target is saturated)"}},
		{"many dropped", 1234, []string{"1234 iterations were dropped: the open model's rate was not offered in full " +
			"(raise --max-vus, or the target is saturated)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
			d := measuredDriver{results.Measurement{Requests: 10, RPS: 5, DroppedIterations: tc.dropped}}
			sum, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: d}).Run(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			rec := sum.Records[0]
			if rec.Status != results.StatusOK || !reflect.DeepEqual(rec.Warnings, tc.want) {
				t.Errorf("status %s warnings %q, want ok with %q", rec.Status, rec.Warnings, tc.want)
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
