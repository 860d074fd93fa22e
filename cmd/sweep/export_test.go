package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// gopRun is the report's fixture of the Game of Pools study (CPU limits
// 2 to 8).
var gopRun = filepath.Join("..", "..", "report", "testdata", "gop")

// TestExportCommand: -o writes the file and nothing to stdout, a budget
// outside the measured limits is said on stderr, json goes to stdout.
func TestExportCommand(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "app.env")
	code, out, stderr := runCLI(t, "export", gopRun, "--profile", "throughput", "--cpus", "15", "-o", file)
	if code != exitOK || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, stderr)
	}
	got, err := os.ReadFile(file)
	want, werr := os.ReadFile(filepath.Join("..", "..", "report", "export", "testdata", "golden", "throughput-15.env"))
	if err != nil || werr != nil || string(got) != string(want) {
		t.Errorf("%s = %q (%v), want the export golden %q (%v)", file, got, err, want, werr)
	}
	if !strings.HasPrefix(stderr, "export: 15 CPUs is outside the measured CPU limits (2, 4, 6, 8)") ||
		!strings.Contains(stderr, "RPS at 15 CPUs (95 % interval") {
		t.Errorf("stderr %q, want the out-of-range warning with the prediction", stderr)
	}
	code, out, stderr = runCLI(t, "export", gopRun, "--cpus", "4", "--format", "json")
	var doc struct {
		Profile    string `json:"profile"`
		WebThreads int    `json:"web_threads"`
		DBPool     int    `json:"db_pool"`
		PickedBy   string `json:"picked_by"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != exitOK || err != nil || stderr != "" {
		t.Fatalf("json: exit %d, %v, stderr %q, stdout %s", code, err, stderr, out)
	}
	if doc.Profile != "balanced" || doc.WebThreads != 6 || doc.DBPool != 9 || !strings.HasSuffix(doc.PickedBy, "measured best: web 6 pool 12") {
		t.Errorf("json %+v, want the default profile balanced at 4 CPUs: the pick, web 6, pool 9, the measured best 6/12 beside it", doc)
	}
}

// TestExportOutput: --out (or -o) is the file written; --output, its
// old name, still writes it and says it is deprecated.
func TestExportOutput(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--out"}, {"-o"}, {"--output"}} {
		file := filepath.Join(t.TempDir(), "app.env")
		code, out, stderr := runCLI(t, "export", gopRun, "--cpus", "4", args[0], file)
		got, err := os.ReadFile(file)
		if code != exitOK || out != "" || err != nil || !strings.Contains(string(got), "BOX_WEB_THREAD=6") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q, file %q (%v)", args[0], code, out, stderr, got, err)
		}
		if deprecated := strings.Contains(stderr, "--output has been deprecated, use --out"); deprecated != (args[0] == "--output") {
			t.Errorf("%s: stderr %q", args[0], stderr)
		}
	}
}

// TestExportNoQualifyingPair: a run in which no multiplier pair finished
// ok at both CPU limits has no rule across them for any profile, so a
// budget it did not measure has nothing to export: exit 1 with the
// report's reason.
func TestExportNoQualifyingPair(t *testing.T) {
	t.Parallel()
	dir := writeSpecRun(t, "--cpus", "1,2", "--web-mult", "1,2", "--db-mult", "2")
	for _, c := range []results.CellInfo{ // web 2 × CPU at 1 CPU, web 1 × CPU at 2
		{ID: "cpu_1__web_2__db_4", CPUs: 1, WebThreads: 2, DBPool: 4, WebMult: 2, DBMult: 2, Mults: [][2]float64{{2, 2}}},
		{ID: "cpu_2__web_2__db_4", CPUs: 2, WebThreads: 2, DBPool: 4, WebMult: 1, DBMult: 2, Mults: [][2]float64{{1, 2}}},
	} {
		rec := results.Record{SchemaVersion: results.SchemaVersion, Cell: c, Repetition: 1,
			Status: results.StatusFailed, Reason: "target not ready after 120s"}
		if err := results.WriteJSONAtomic(filepath.Join(results.CellDir(dir, c.ID, 1), results.ResultFile), rec); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runCLI(t, "export", dir, "--cpus", "1.5", "--profile", "latency")
	want := "sweep: profile latency-first: no qualifying multiplier pair: no multiplier pair was measured without errors at every CPU limit"
	if code != exitFailure || out != "" || strings.TrimSpace(stderr) != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, stderr, want)
	}
}

// TestExportBadInput: bad flags and runs are exit 2 naming the flag.
func TestExportBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown profile", []string{"--cpus", "4", "--profile", "fastest"}, "--profile"},
		{"unknown format", []string{"--cpus", "4", "--format", "yaml"}, "--format"},
		{"no cpus", nil, "--cpus"},
		{"cpus not a number", []string{"--cpus", "four"}, "--cpus"},
		{"compose without files", []string{"--cpus", "4", "--format", "compose"}, "--compose"},
		{"missing compose file", []string{"--cpus", "4", "--format", "compose", "--compose", "/nonexistent.yaml"}, "--compose"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := runCLI(t, append([]string{"export", gopRun}, c.args...)...)
			if code != exitBadInput || out != "" || !strings.Contains(stderr, "sweep: "+c.want+":") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 naming %s", code, out, stderr, c.want)
			}
		})
	}
	code, _, stderr := runCLI(t, "export", t.TempDir(), "--cpus", "4")
	if code != exitBadInput || !strings.Contains(stderr, "not a run directory") {
		t.Errorf("not a run: exit %d, stderr %q", code, stderr)
	}
}
