package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// writeRun writes a finished run of spec into dir with made-up figures:
// rps grows with web threads, p99 with the axis value's length.
func writeRun(t *testing.T, dir string, spec sweep.Spec) {
	t.Helper()
	meta := sweep.NewMeta("20260101-000000", version, spec)
	meta.Spec, _ = json.Marshal(spec.Redacted())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta); err != nil {
		t.Fatal(err)
	}
	for i, c := range spec.Cells() {
		rec := results.Record{SchemaVersion: 1, Cell: c.Info(), Repetition: 1, Status: results.StatusOK,
			Load: spec.LoadFor(c, "builtin"), PhasesS: map[string]float64{}}
		rec.Requests, rec.RPS = 1000, 100*float64(c.WebThreads)+float64(i)
		rec.LatencyMS = results.Latency{P50: 2, P99: 5 + float64(len(c.Info().Slice()))}
		cd := results.CellDir(dir, c.ID, 1)
		if err := os.MkdirAll(cd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSONAtomic(filepath.Join(cd, results.ResultFile), rec); err != nil {
			t.Fatal(err)
		}
	}
}

// writeSpecRun writes a finished run of the spec the flags give (one
// repetition, grid order, built-in driver) and returns its directory.
func writeSpecRun(t *testing.T, flags ...string) string {
	t.Helper()
	spec, err := resolveSpec(t, flags...)
	if err != nil {
		t.Fatal(err)
	}
	spec.Service, spec.Repeat, spec.Order, spec.Driver = "app", 1, "grid", "builtin"
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, spec)
	return dir
}

func TestReportSlicesExtraAxes(t *testing.T) {
	t.Parallel()
	dir := writeSpecRun(t, "--cpus", "1,2", "--web-mult", "1,2", "--db-mult", "2",
		"--axis", "pgbouncer:POOL_MODE=transaction,session")

	code, out, stderr := runCLI(t, "report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"== slice: pgbouncer:POOL_MODE=transaction ==", "== slice: pgbouncer:POOL_MODE=session ==", "CPU 2: RPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for _, f := range []string{"report.md", "results.csv", "slices/pgbouncer_POOL_MODE_session/report.html",
		"slices/pgbouncer_POOL_MODE_transaction/results.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	if !strings.Contains(string(csv), "axis.pgbouncer:POOL_MODE") || strings.Count(string(csv), "\n") != 9 {
		t.Errorf("results.csv should hold 8 rows with the axis column:\n%s", csv)
	}

	code, out, _ = runCLI(t, "report", dir, "--json")
	var doc struct {
		Slices []map[string]any `json:"slices"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Slices) != 2 || doc.Slices[0]["per_cpu"] == nil {
		t.Errorf("--json: exit %d, %d slices in %q", code, len(doc.Slices), out)
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"report", t.TempDir()},
		{"report", "/nonexistent/run"},
		{"report", t.TempDir(), "--metric", "speed"},
		{"compare", t.TempDir(), t.TempDir()},
	} {
		if code, _, stderr := runCLI(t, args...); code != exitBadInput {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
	// The message says what is wrong and the fix, not only "bad input".
	_, _, stderr := runCLI(t, "report", t.TempDir(), "--metric", "speed")
	if want := `--metric: unknown metric "speed" (want one of rps,`; !strings.Contains(stderr, want) {
		t.Errorf("--metric speed: stderr %q, want it to contain %q", stderr, want)
	}
}

// TestReportPredictCPUs covers --predict-cpus: predictions with
// intervals and cells in --json and results.json on three CPU limits,
// the reason on stderr with two, and bad values as bad input.
func TestReportPredictCPUs(t *testing.T) {
	t.Parallel()
	dir := writeSpecRun(t, "--cpus", "1,2,3", "--web-mult", "1,2", "--db-mult", "2")

	code, out, stderr := runCLI(t, "report", dir, "--json", "--predict-cpus", "5,12")
	var doc struct {
		USL *struct {
			Sigma, Kappa, Lambda float64
			Predictions          []struct {
				CPUs, RPS, Lo, Hi float64
				Extrapolation     bool
				Settings          []struct {
					WebThreads int `json:"web_threads"`
				}
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || doc.USL == nil || len(doc.USL.Predictions) != 2 {
		t.Fatalf("exit %d (%s): want a usl object with two predictions in %s", code, stderr, out)
	}
	for _, p := range doc.USL.Predictions {
		if !(p.Lo <= p.RPS && p.RPS <= p.Hi) || !p.Extrapolation || len(p.Settings) == 0 {
			t.Errorf("prediction %+v: want an extrapolation inside its interval, with the recommended cells", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "results.json")); !strings.Contains(string(b), `"predict_cpus"`) ||
		!strings.Contains(string(b), `"usl"`) {
		t.Error("results.json lacks the usl object or the predict_cpus option")
	}

	dir2 := writeSpecRun(t, "--cpus", "1,2", "--web-mult", "1,2", "--db-mult", "2")
	code, out, stderr = runCLI(t, "report", dir2, "--predict-cpus", "4")
	if code != 0 || !strings.Contains(stderr, "no USL fit: the run has 2 CPU limit(s)") ||
		!strings.Contains(out, "no USL fit") {
		t.Errorf("two CPU limits: exit %d, stderr %q: want 0 and the reason", code, stderr)
	}
	for _, bad := range []string{"0", "-4", "x", ""} {
		if code, _, _ := runCLI(t, "report", dir, "--predict-cpus", bad); code != exitBadInput {
			t.Errorf("--predict-cpus %q: exit %d, want 2", bad, code)
		}
	}
}

// TestReportNamesABadRecord checks that `sweep report` on a run with a
// result.json that is `{}`, `null` or truncated exits 1 naming the file,
// instead of reporting the cell as missing.
func TestReportNamesABadRecord(t *testing.T) {
	t.Parallel()
	for name, text := range map[string]string{"empty object": "{}", "null": "null", "truncated": `{"schema_version": 1, "cell": {"id"`} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := writeSpecRun(t, "--cpus", "1,2", "--web-mult", "1", "--db-mult", "2")
			bad := filepath.Join(results.CellDir(dir, "cpu_2__web_2__db_4", 1), results.ResultFile)
			if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCLI(t, "report", dir)
			if code != exitFailure || !strings.Contains(stderr, bad) {
				t.Errorf("exit %d, want 1 naming %s:\n%s", code, bad, stderr)
			}
		})
	}
}
