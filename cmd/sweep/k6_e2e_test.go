package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// k6Run is demoRun with the real k6 as the driver and the given load;
// extra flags given later win (e.g. --cpus).
func k6Run(t *testing.T, p ports, out, k6 string, load string, extra ...string) cmdline {
	t.Helper()
	c := demoRun(t, p, out, "0.5")
	for i := 0; i < len(c.args)-1; i++ {
		switch c.args[i] {
		case "--driver":
			c.args[i+1] = "k6"
		case "--load":
			c.args[i+1] = load
		}
	}
	c.args = append(c.args, append([]string{"--k6", k6}, extra...)...)
	return c
}

// TestK6UserScriptOnDemo runs a user's script without options on the demo
// stack with the real k6: sweep's load is the one that runs (before, k6
// ran its default 1 VU × 1 iteration and the record said 4 VUs), the
// script is in sweep.json and the run directory, and after an edit a
// resume is refused as a spec change before anything starts. It skips
// without k6 on PATH or without an engine.
func TestK6UserScriptOnDemo(t *testing.T) {
	k6 := testenv.K6(t)
	bin, cli := demo(t)
	script := filepath.Join(t.TempDir(), "user.js")
	body := "import http from 'k6/http';\nexport default function () { http.get(__ENV.BASE_URL + '/health'); }\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := k6Run(t, p, out, k6, "vus=3", "--script", script)
	code, pr := runSweep(t, bin, c)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	meta := readMeta(t, out)
	rec := readRecord(t, out, meta.Cells[0].ID)
	t.Logf("load %+v ran vus_max %d for %.2f s, %d iterations, %d requests, %d bytes sent",
		rec.Load, rec.VUsMax, rec.DurationS, rec.Iterations, rec.Requests, rec.BytesSent)
	if rec.Status != results.StatusOK || rec.Load.Driver != "k6" || rec.Load.VUs != 3 || rec.VUsMax != 3 {
		t.Errorf("status %s (%s), load %+v, vus_max %d; want ok with 3 VUs recorded and run", rec.Status, rec.Reason, rec.Load, rec.VUsMax)
	}
	// The 3 s phase and at most its 5 s graceful stop; more iterations
	// than VUs (k6's default ran one), however slow the host.
	if rec.DurationS < 3 || rec.DurationS > 8 || rec.Iterations <= 3 || rec.BytesSent <= 0 {
		t.Errorf("ran %.2f s, %d iterations, %d bytes; want the 3 s phase", rec.DurationS, rec.Iterations, rec.BytesSent)
	}
	var spec struct {
		Script *sweep.Script `json:"script"`
	}
	if err := json.Unmarshal(meta.Spec, &spec); err != nil || spec.Script == nil || spec.Script.Path != script || len(spec.Script.SHA256) != 64 {
		t.Errorf("sweep.json spec.script %+v (%v)", spec.Script, err)
	}
	if kept, err := os.ReadFile(filepath.Join(out, results.ScriptDir, "user.js")); err != nil || string(kept) != body {
		t.Errorf("the run's copy of the script: %q, %v", kept, err)
	}

	if err := os.WriteFile(script, []byte(body+"// edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, again := range []cmdline{c, {args: []string{"resume", out, "--db-dsn", p.dsn(), "--k6", k6}, env: c.env}} {
		code, pr := runSweep(t, bin, again)
		if stderr := pr.stderr.String(); code != exitBadInput || !strings.Contains(stderr, "script ("+script+" changed: sha256") {
			t.Errorf("sweep %s after the script changed: exit %d, want 2 naming the script\n%s", again.args[0], code, stderr)
		}
	}
	assertNoContainers(t, cli, meta.RunID)
}

// TestK6LightRateOnDemo runs the bundled crud.js at --load rate=20 on the
// demo stack (1 CPU, 4 web threads). The open model pre-allocates 20 VUs,
// one second of iterations: when the target keeps its iterations under a
// second nothing is dropped (before, 2 VUs were pre-allocated and k6
// dropped iterations while it added more); when the host is too busy for
// that, the dropped-iterations warning must name the saturated target.
func TestK6LightRateOnDemo(t *testing.T) {
	k6 := testenv.K6(t)
	bin, _ := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	code, pr := runSweep(t, bin, k6Run(t, p, out, k6, "rate=20", "--cpus", "1", "--web-mult", "4"))
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	rec := readRecord(t, out, readMeta(t, out).Cells[0].ID)
	if rec.Status != results.StatusOK || rec.Load.VUs != 20 || rec.IterationMS == nil {
		t.Fatalf("status %s (%s), load %+v, iterations %v; want ok with 20 VUs pre-allocated", rec.Status, rec.Reason, rec.Load, rec.IterationMS)
	}
	t.Logf("%d iterations, %d dropped, vus_max %d, iterations p50 %.0f ms p99 %.0f ms (fastest %.0f ms), warnings %q",
		rec.Iterations, rec.DroppedIterations, rec.VUsMax, rec.IterationMS.P50, rec.IterationMS.P99, rec.IterationMS.Min, rec.Warnings)
	// 20/s for 3 s: k6 starts one at 0 s and may start one more at 3 s
	if got := rec.Iterations + rec.DroppedIterations; got < 58 || got > 62 {
		t.Errorf("%d iterations offered, want about 60", got)
	}
	if rec.IterationMS.P99 < 1000 {
		if rec.DroppedIterations != 0 || len(rec.Warnings) != 0 {
			t.Errorf("iterations under a second, yet %d dropped, warnings %q", rec.DroppedIterations, rec.Warnings)
		}
		return
	}
	saturated := slices.ContainsFunc(rec.Warnings, func(w string) bool { return strings.Contains(w, "the target is saturated") })
	if rec.DroppedIterations > 0 && !saturated {
		t.Errorf("iterations of up to %.0f ms and %d dropped, but the warning does not name the saturated target: %q",
			rec.IterationMS.P99, rec.DroppedIterations, rec.Warnings)
	}
}
