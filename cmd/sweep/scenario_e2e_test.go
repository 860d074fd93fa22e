package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestScenarioOnDemo sweeps the demo with --scenario: the demo's CRUD
// scenario file with its operations renamed, one cell. The record's
// operations are the file's, every one with requests and no errors; the
// cell's load names the file and its hash, and the run keeps its copy.
func TestScenarioOnDemo(t *testing.T) {
	bin, cli := demo(t)
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "k6scripts", "scenarios", "demo-crud.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	renamed := map[string]string{"create": "add", "read": "fetch", "update": "change", "delete": "remove"}
	body := regexp.MustCompile(`name: (create|read|update|delete)\b`).ReplaceAllStringFunc(string(src), func(m string) string {
		return "name: " + renamed[strings.TrimPrefix(m, "name: ")]
	})
	path := filepath.Join(t.TempDir(), "renamed.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	c.args = append(c.args, "--scenario", path, "--driver", "auto")
	code, pr := runSweep(t, bin, c)
	if code != exitOK {
		t.Fatalf("exit %d\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 1 || meta.Host.Driver != "builtin" {
		t.Fatalf("cells %d, driver %q; want one cell on the built-in driver", len(meta.Cells), meta.Host.Driver)
	}
	rec := readRecord(t, out, meta.Cells[0].ID)
	var ops []string
	for op, s := range rec.Ops {
		ops = append(ops, op)
		if s.Requests == 0 || s.ErrorRate != 0 || s.Skipped != 0 {
			t.Errorf("operation %s: %d requests, %.3f errors, %d skipped; want requests and no errors", op, s.Requests, s.ErrorRate, s.Skipped)
		}
	}
	slices.Sort(ops)
	if want := []string{"add", "change", "fetch", "remove"}; !slices.Equal(ops, want) || rec.Status != results.StatusOK || len(rec.Errors) != 0 {
		t.Errorf("%s: operations %q, errors %v; want %q and none", rec.Status, ops, rec.Errors, want)
	}
	if f := rec.Load.Scenario; f == nil || f.Name != "renamed.yaml" || f.SHA256 != fmt.Sprintf("%x", sha256.Sum256([]byte(body))) {
		t.Errorf("the record's load.scenario %+v, want renamed.yaml and its sha256", f)
	}
	if kept, err := os.ReadFile(filepath.Join(out, results.ScenarioDir, "renamed.yaml")); err != nil || string(kept) != body {
		t.Errorf("the run's copy of the scenario: %d bytes, %v", len(kept), err)
	}
	assertNoContainers(t, cli, meta.RunID)
}
