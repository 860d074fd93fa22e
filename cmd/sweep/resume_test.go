package main

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/sweep-tool/sweep/sweep"
)

// TestRerunUnknownCellFirst: rerun of a cell the run does not have says
// so before it asks for the run's database DSN (or an engine).
func TestRerunUnknownCellFirst(t *testing.T) {
	spec, err := resolveSpec(t, "--cpus", "1", "--web-mult", "1", "--db-mult", "2")
	if err != nil {
		t.Fatal(err)
	}
	spec.Service, spec.Repeat, spec.Order, spec.Driver = "app", 1, "grid", "builtin"
	spec.DBDSN = "postgres://u:secret@127.0.0.1:1/db"
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, spec)
	code, _, stderr := runCLI(t, "rerun", dir, "cpu_9__web_9__db_9")
	if code != exitBadInput || !strings.Contains(stderr, "--cell") || !strings.Contains(stderr, "cpu_9__web_9__db_9") ||
		strings.Contains(stderr, "--db-dsn") {
		t.Errorf("exit %d, want 2 saying the cell is unknown (not asking for --db-dsn):\n%s", code, stderr)
	}
}

// TestSavedSpecTakesNewDSNs: resume and rerun take the DSNs from the
// environment like run does, a changed password or host is the same
// spec, and only dropping the database of a run that sampled one is
// refused.
func TestSavedSpecTakesNewDSNs(t *testing.T) {
	dir := writeSpecRun(t, "--cpus", "1", "--db-dsn", "postgres://u:old@db-a:5432/app")
	env := sweep.Env{"SWEEP_DB_DSN=postgres://u:new@db-b:5433/app", "SWEEP_POOLER_DSN=postgres://u:new@pgbouncer:6432/app"}
	for _, cmd := range []*cobra.Command{newResumeCmd(io.Discard, io.Discard), newRerunCmd(io.Discard, io.Discard)} {
		cmd.SetContext(withEnv(t.Context(), env))
		spec, err := savedSpec(cmd, dir, dsnFlags{})
		if err != nil || spec.DBDSN != "postgres://u:new@db-b:5433/app" || spec.PoolerDSN != "postgres://u:new@pgbouncer:6432/app" {
			t.Fatalf("%s: spec DSNs %q, %q (%v); want the environment's", cmd.Name(), spec.DBDSN, spec.PoolerDSN, err)
		}
		meta := readMeta(t, dir)
		if diff, err := sweep.DiffSpecs(meta.Spec, meta.SampledDB(), spec); err != nil || len(diff) != 0 {
			t.Errorf("%s: a new DSN differs as %q (%v), want the same spec", cmd.Name(), diff, err)
		}
	}
	if _, err := savedSpec(newResumeCmd(io.Discard, io.Discard), dir, dsnFlags{}); !errors.Is(err, sweep.ErrBadInput) ||
		!strings.Contains(message(err), "--db-dsn") {
		t.Errorf("no DSN for a run that sampled a database: %v, want bad input naming --db-dsn", err)
	}
}

// TestRerunDriftedArgs: rerun takes a cell or --drifted, never both and
// never neither, and says so before it reads the run.
func TestRerunDriftedArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"drifted and a cell", []string{"rerun", "--drifted", "runs/x", "cpu_1__web_1__db_2"}, "--drifted: measures the cells the report marks drifted"},
		{"neither", []string{"rerun", "runs/x"}, "--cell: give the cell to measure again, or --drifted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, _, stderr := runCLI(t, tc.args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitBadInput, tc.want)
			}
		})
	}
}
