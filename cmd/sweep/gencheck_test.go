package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/sweep"
)

// TestCheckFirstOnTheDemo runs `sweep run --check-first` with the built-in
// driver on one demo cell for seconds: the generator check compares the
// built-in driver with itself and never blames the generator, it lands in the run as
// generator-check.json, and the cell's record holds a Little's ratio near
// 1 (expected 1: the built-in driver's users wait for nothing but their
// requests), the host's CPU pressure or the reason it is missing, and the
// driver's CPU per request.
func TestCheckFirstOnTheDemo(t *testing.T) {
	bin, cli := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	c := demoRun(t, p, out, "1")
	c.args = append(c.args, "--check-first")
	code, pr := runSweep(t, bin, c)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, pr.stdout.String(), pr.stderr.String())
	}
	t.Logf("check:\n%s", pr.stdout.String())
	if all := pr.stdout.String() + pr.stderr.String(); strings.Contains(all, "not the target, limits") {
		t.Errorf("the check blamed the generator with the built-in driver\nstdout:\n%s\nstderr:\n%s", pr.stdout.String(), pr.stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, sweep.GeneratorCheckFile))
	var gc sweep.GeneratorCheck
	if err != nil || json.Unmarshal(data, &gc) != nil {
		t.Fatalf("%s: %v\n%s", sweep.GeneratorCheckFile, err, data)
	}
	if gc.Chosen.RPS <= 0 || gc.Reference.RPS <= 0 || gc.Chosen.Driver != "builtin" || gc.Reference.Driver != "builtin" {
		t.Errorf("generator check %+v: want two measured runs of the built-in driver", gc)
	}
	// Two runs of one driver differing beyond their noise say the host
	// is too busy to measure on, which a shared test machine may be; the
	// check then says so, and never that the generator limits the load.
	if gc.Limited {
		t.Logf("the host was too busy: %s", gc.Warning)
	}
	meta := readMeta(t, out)
	rec := readRecord(t, out, meta.Cells[0].ID)
	if rec.LittlesRatio == nil || math.Abs(*rec.LittlesRatio-1) > 0.05 || *rec.LittlesExpected != 1 || rec.LittlesOff() != "" {
		t.Errorf("littles %v / %v: want a ratio within 5 %% of 1, expected 1", rec.LittlesRatio, rec.LittlesExpected)
	} else {
		t.Logf("Little's ratio %.4f at %.0f rps, %.2f ms mean, %d VUs", *rec.LittlesRatio, rec.RPS, rec.LatencyMS.Avg, rec.Load.VUs)
	}
	if rec.Host == nil || (rec.Host.CPUPressure == nil) == (rec.Host.CPUPressureReason == "") {
		t.Errorf("host %+v: want the CPU pressure or the reason it is missing", rec.Host)
	}
	if rec.Driver == nil || rec.Driver.CPUPerRequestUS <= 0 {
		t.Errorf("driver %+v: want its CPU per request", rec.Driver)
	}
	assertNoContainers(t, cli, meta.RunID)
}
