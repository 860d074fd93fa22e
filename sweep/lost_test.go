package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// blockingMonitor makes the run file it names impossible to write during
// the measured phase: a directory in its place defeats the rename even for
// root, whom file modes do not stop. Its Stop writes samples.csv.
type blockingMonitor struct{ file string }

func (m blockingMonitor) Start(_ context.Context, _ Cell, dir string) error {
	return os.Mkdir(filepath.Join(dir, m.file), 0o755)
}

func (m blockingMonitor) Stop(_ context.Context, _ *results.Record, dir string, _ []results.Interval) error {
	return results.WriteSamples(dir, results.Series{})
}

// TestRunnerStopsWhenARecordCannotBeWritten checks that a run file that
// cannot be written (result.json, samples.csv) stops the run at that cell
// with a WriteError naming the file, that the cell is not ok, and that no
// later cell runs.
func TestRunnerStopsWhenARecordCannotBeWritten(t *testing.T) {
	t.Parallel()
	for _, file := range []string{results.ResultFile, results.SamplesFile} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			stack := &fakeStack{}
			r := &Runner{Spec: testSpec(), Dir: dir, Stack: stack, Driver: &fakeDriver{}, Monitor: blockingMonitor{file}}
			sum, err := r.Run(t.Context())
			first := r.Spec.Cells()[0].ID
			path := filepath.Join(results.CellDir(dir, first, 1), file)
			var we *results.WriteError
			if !errors.As(err, &we) || we.Path != path {
				t.Fatalf("Run = %v, want a WriteError naming %s", err, path)
			}
			if len(sum.Records) != 1 || len(stack.applied) != 1 {
				t.Fatalf("%d records, %d cells applied; want the run to stop after the first", len(sum.Records), len(stack.applied))
			}
			if rec := sum.Records[0]; rec.Status == results.StatusOK || !strings.Contains(rec.Reason, path) {
				t.Errorf("cell %s: %s (%q), want not ok with a reason naming %s", first, rec.Status, rec.Reason, path)
			}
		})
	}
}
