package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/internal/demostack"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/report/export"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestBaselineSweepAndExport runs a small demo sweep with a baseline: each
// CPU limit gets its baseline cell, recorded and marked; report --json
// gives every profile's gain over it per CPU limit; and the compose export
// of that run, merged with the demo's compose file by the compose CLI,
// starts the demo target with exactly the exported CPU limit and env.
func TestBaselineSweepAndExport(t *testing.T) {
	bin, _ := demo(t)
	ccli, err := compose.DetectCLI(t.Context(), sweep.Env(os.Environ()))
	if err != nil {
		testenv.Absent(t, err.Error())
	}
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "0.5,1")
	c.args = append(c.args, "--web-mult", "1,2", "--baseline", "web=1,pool=1")
	t.Cleanup(func() { removeRun(t, out) })
	if code, pr := runSweep(t, bin, c); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	var baselines []string
	for _, cell := range meta.Cells {
		if cell.Baseline {
			baselines = append(baselines, cell.ID)
			if rec := readRecord(t, out, cell.ID); rec.Status != results.StatusOK || !rec.Cell.Baseline || rec.Applied.Env["BOX_DB_POOL_MAXIMUM_POOL_SIZE"] != "1" {
				t.Errorf("%s: status %s (%s), baseline %v, applied %v", cell.ID, rec.Status, rec.Reason, rec.Cell.Baseline, rec.Applied.Env)
			}
		}
	}
	if want := []string{"cpu_0.5__web_1__db_1__baseline", "cpu_1__web_1__db_1__baseline"}; !slices.Equal(baselines, want) {
		t.Fatalf("baseline cells %q, want %q", baselines, want)
	}
	code, stdout, stderr := runCLI(t, "report", out, "--json")
	if code != exitOK {
		t.Fatalf("report --json: exit %d\n%s", code, stderr)
	}
	var doc report.Recommendation
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	for _, d := range doc.PerCPU {
		var profiles []string
		for _, g := range d.VsBaseline {
			profiles = append(profiles, g.Profile)
			if !strings.HasSuffix(g.Text, "vs baseline") && !strings.HasSuffix(g.Text, report.NotBetter) {
				t.Errorf("CPU %g %s: %q", d.CPUs, g.Profile, g.Text)
			}
		}
		slices.Sort(profiles)
		if d.Baseline == nil || !slices.Equal(profiles, []string{"balanced", "latency", "throughput"}) {
			t.Errorf("CPU %g: baseline %v, gains for %q, want one per profile", d.CPUs, d.Baseline, profiles)
		}
		for _, g := range d.VsBaseline {
			t.Logf("CPU %g %s: %s → %s", d.CPUs, g.Profile, g.Cell, g.Text)
		}
	}
	checkExportStarts(t, ccli, out)
	// rerun takes the baseline cell by its id, as a new repetition.
	rerun := cmdline{args: []string{"rerun", out, "cpu_1__web_1__db_1__baseline", "--db-dsn", p.dsn()}, env: c.env}
	if code, pr := runSweep(t, bin, rerun); code != exitOK {
		t.Fatalf("rerun of the baseline cell: exit %d\nstderr:\n%s", code, pr.stderr.String())
	}
	rec, err := results.ReadRecord(filepath.Join(results.CellDir(out, "cpu_1__web_1__db_1__baseline", 2), results.ResultFile))
	if err != nil || rec.Status != results.StatusOK || !rec.Cell.Baseline {
		t.Errorf("rerun's r2: %s %v", rec.Status, err)
	}
}

// checkExportStarts exports the run's balanced pick at 1 CPU as JSON and
// as a compose override, starts the demo with the override and reads the
// target's CPU limit and env back from the engine.
func checkExportStarts(t *testing.T, ccli compose.CLI, run string) {
	t.Helper()
	base := filepath.Join(repoRoot(t), "compose", "demo", "docker-compose.yaml")
	code, stdout, stderr := runCLI(t, "export", run, "--cpus", "1", "--format", "json", "--compose", base)
	if code != exitOK {
		t.Fatalf("export json: exit %d\n%s", code, stderr)
	}
	var s export.Settings
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	override := filepath.Join(t.TempDir(), "export.yaml")
	if code, _, stderr := runCLI(t, "export", run, "--cpus", "1", "--format", "compose", "--compose", base, "-o", override); code != exitOK {
		t.Fatalf("export compose: exit %d\n%s", code, stderr)
	}
	cli := testenv.Docker(t)
	st := demostack.Start(t, ccli, base, override)
	got, err := cli.ContainerInspect(t.Context(), st.Target(t, cli))
	if err != nil {
		t.Fatal(err)
	}
	if got.HostConfig.NanoCPUs != 1e9 || len(s.Env) == 0 {
		t.Errorf("target CPU limit %d nano-CPUs, exported 1 CPU; exported env %v", got.HostConfig.NanoCPUs, s.Env)
	}
	for name, v := range s.Env {
		if !slices.Contains(got.Config.Env, name+"="+v) {
			t.Errorf("target env %v lacks the exported %s=%s", got.Config.Env, name, v)
		}
	}
}

// TestConnLimitGuardOnDemo: the demo's PostgreSQL allows 200 connections;
// a cell with a pool of 250 stops the run before any cell (exit 2, the
// cell named, nothing recorded, nothing left running). With --over-limit
// skip the same run records that cell skipped and measures the other.
func TestConnLimitGuardOnDemo(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	c.args = append(c.args, "--db-mult", "2,250")
	t.Cleanup(func() { removeRun(t, out) })
	code, pr := runSweep(t, bin, c)
	stderr := pr.stderr.String()
	if code != exitBadInput || !strings.Contains(stderr, "cpu_1__web_1__db_250: pool 250") ||
		!strings.Contains(stderr, "max_connections 200") || !strings.Contains(stderr, "--over-limit") ||
		strings.Contains(stderr, "cpu_1__web_1__db_2:") {
		t.Fatalf("exit %d, want 2 naming only the over-limit cell\nstderr:\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, results.CellsDir)); !os.IsNotExist(err) {
		t.Errorf("cells recorded after the refusal (%v)", err)
	}
	meta := readMeta(t, out)
	assertNoContainers(t, cli, meta.RunID)

	c.args = append(c.args, "--over-limit", "skip")
	if code, pr := runSweep(t, bin, c); code != exitOK {
		t.Fatalf("--over-limit skip: exit %d\nstderr:\n%s", code, pr.stderr.String())
	}
	skipped := readRecord(t, out, "cpu_1__web_1__db_250")
	if skipped.Status != results.StatusSkipped || !strings.Contains(skipped.Reason, "pool 250") || skipped.Applied.ContainerID != "" {
		t.Errorf("over-limit cell: status %s reason %q applied %+v", skipped.Status, skipped.Reason, skipped.Applied)
	}
	ok := readRecord(t, out, "cpu_1__web_1__db_2")
	if ok.Status != results.StatusOK || len(ok.ConnLimit) != 0 || ok.Applied.Env["BOX_DB_POOL_MAXIMUM_POOL_SIZE"] != "2" {
		t.Errorf("other cell: status %s (%s), conn_limit %q, applied %v", ok.Status, ok.Reason, ok.ConnLimit, ok.Applied.Env)
	}
	if md, err := os.ReadFile(filepath.Join(out, "report.md")); err != nil || !strings.Contains(string(md), "SKIPPED: pool 250") {
		t.Errorf("report.md does not show the skipped cell (%v)", err)
	}
	assertNoContainers(t, cli, meta.RunID)
}
