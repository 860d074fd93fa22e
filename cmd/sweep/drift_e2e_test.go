package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/client"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/internal/cpuhog"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestDriftFlaggedAndRerun is issue 26's fault test: a CPU hog that
// competes for exactly the target's CPU halfway through a run is flagged
// as drift of the control, the cells measured beside it are marked, the
// run's noise band is wider for it, and `rerun --drifted` measures
// exactly those cells again.
//
// The target is pinned to the engine's last CPU (--cpuset) and the hog,
// a container of the stack's own PostgreSQL image running two busy loops
// pinned to that same CPU with twice the target's CPU shares, leaves the
// target at most a third of its core whatever else the host does, and
// every request the target wakes for waits behind the hog's time slice:
// its throughput falls by a large factor on a quiet host as on a busy
// one. (Unpinned, the kernel gave an earlier hog an idle core and the
// controls did not move: d703134.) The shares were chosen on this host
// with the demo app at web 1, pool 2 and 4 clients posting for 3 s: 1146
// and 1724 RPS without a hog; beside a pinned one 413 and 441 at equal
// shares, 226 and 179 at twice them, 48 at four times; at sixteen times
// the app's healthcheck (an exec in its cgroup) overran its 1 s timeout
// and a recreated target never got ready.
//
// The grid is 4 cells of 3 s with the control measured before and after
// each (--control-every 1: c1 K1 c2 K2 c3 K3 c4 K4 c5), which gives the
// drift rule three controls before the hog and two beside it in 9 jobs;
// the hog starts once c3's record is written and runs to the end of the
// run, so K1 and K2 are measured before it and K3 and K4 beside it.
// K3 and K4 must be marked; K1 and K2 must not, unless the host itself
// moved the control between them and the hog by over half the drop the
// hog caused (this 2-core host, busy with a cluster build, moved it from
// 1727 to 904 RPS in 20 s once), when the drift rule rightly takes the
// drift to have begun before the hog.
// Every figure asserted is a ratio of the run's own records, never an
// absolute one: the controls beside the hog against those before it, and
// the noise bands. The band without the hog is not a second run's (that
// would double the test's time) but the one the report's rule gives from
// the three controls before the hog, within this run: both bands are
// z × √2 × a coefficient of variation (report.Noise), so their ratio is
// that of the CVs. The stack stays up for the rerun (--keep), which runs
// after the hog is removed.
func TestDriftFlaggedAndRerun(t *testing.T) {
	longTest(t, "160-240 s, once more on a busy host")
	bin, cli := demo(t)
	info, err := cli.Info(t.Context())
	if err != nil {
		t.Fatalf("engine info: %v", err)
	}
	core := strconv.Itoa(info.NCPU - 1)
	// The verdict needs a host that moved the control only with the hog:
	// a drop within the band of the controls before it (visibleBand) leaves
	// the drift rule nothing to see. Such a run is removed and the grid run
	// once more; a second one fails the test, naming the host. (A fixed
	// gate, RPS CV 0.2 of the three controls, failed a fresh machine's CI
	// at 0.224 and a quiet host here at 0.212, 2026-12-05.)
	var hr hogRun
	for attempt := 1; ; attempt++ {
		var busy string
		hr, busy = runBesideHog(t, bin, cli, core)
		if busy == "" {
			break
		}
		if attempt == 2 {
			t.Fatalf("the host was too busy to judge drift twice: %s; run make test-drift with nothing else running", busy)
		}
		t.Logf("attempt %d: the host was too busy to judge drift (%s); removing the run and running the grid again", attempt, busy)
		removeRun(t, hr.out)
		assertNoContainers(t, cli, hr.meta.RunID)
	}
	p, c, out, meta, control := hr.p, hr.c, hr.out, hr.meta, hr.control
	ctrls, before, beside, figures := hr.ctrls, hr.before, hr.beside, hr.figures
	ratio := stat.Mean(beside, nil) / stat.Mean(before, nil)
	t.Logf("controls (hog from %s):\n%sRPS beside the hog / before it: %.2f", hr.hogAt.Format("15:04:05.000"), figures, ratio)
	if ratio > 0.5 {
		t.Fatalf("the hog pinned to the target's CPU %s left the control at %.2f of its RPS, want at most 0.5", core, ratio)
	}

	doc := readDriftDoc(t, out)
	cvBefore, _ := confidence.CV(before)
	t.Logf("noise from %d controls: RPS CV %.3f (band %.1f %%), p99 CV %.3f; the 3 before the hog: RPS CV %.3f",
		doc.Noise.Controls, doc.Noise.RPSCV, 100*doc.Noise.RPS, doc.Noise.P99CV, cvBefore)
	if !doc.Noise.Measured || doc.Noise.Controls != 5 {
		t.Errorf("noise %+v: want it measured from 5 controls", doc.Noise)
	}
	if doc.Noise.RPSCV <= cvBefore {
		t.Errorf("the run's RPS noise band (CV %.3f) is not wider than the one of its controls before the hog (CV %.3f)",
			doc.Noise.RPSCV, cvBefore)
	}
	if doc.Drift == nil {
		t.Fatalf("no drift flagged; controls:\n%s", figures)
	}
	t.Logf("drift %+v marks %v", doc.Drift.Metrics, doc.Drift.Cells)
	for _, m := range doc.Drift.Metrics {
		if (m.Metric == report.MetricRPS) != (m.Change < 0) {
			t.Errorf("drift %+v: want RPS down or p99 up beside the hog", m)
		}
	}
	hogAt := hr.hogAt
	halfDrop := (stat.Mean(before, nil) - stat.Mean(beside, nil)) / 2
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		marked := slices.Contains(doc.Drift.Cells, cell.ID)
		switch {
		case rec.FinishedAt.Before(hogAt) && marked && !hostMoved(ctrls[:len(before)], rec, halfDrop):
			t.Errorf("%s, measured before the hog, is marked drifted", cell.ID)
		case rec.FinishedAt.Before(hogAt) && marked:
			t.Logf("%s, measured before the hog, is marked: the host moved the control on its own by over half the hog's drop (%.0f RPS) after it",
				cell.ID, halfDrop)
		case measuredFrom(rec).After(hogAt) && !marked:
			t.Errorf("%s, measured beside the hog, is not marked drifted (%v)", cell.ID, doc.Drift.Cells)
		case !rec.FinishedAt.Before(hogAt) && !measuredFrom(rec).After(hogAt):
			t.Errorf("%s was measured from %s to %s, across the hog's start at %s", cell.ID,
				measuredFrom(rec).Format("15:04:05.000"), rec.FinishedAt.Format("15:04:05.000"), hogAt.Format("15:04:05.000"))
		}
	}
	for _, cell := range doc.Cells {
		if cell.Drifted != slices.Contains(doc.Drift.Cells, cell.ID) {
			t.Errorf("results.json marks %s drifted %v, the drift names %v", cell.ID, cell.Drifted, doc.Drift.Cells)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil || !strings.Contains(string(md), "the host drifted") {
		t.Errorf("report.md does not flag the drift (%v)", err)
	}
	for _, id := range doc.Drift.Cells {
		if !strings.Contains(string(md), id) {
			t.Errorf("report.md does not name the drifted cell %s", id)
		}
	}

	rerun := cmdline{args: []string{"rerun", "--drifted", out, "--db-dsn", p.dsn()}, env: c.env, out: out}
	if code, pr := runSweep(t, bin, rerun); code != exitOK {
		t.Fatalf("rerun --drifted: exit %d\nstderr:\n%s", code, pr.stderr.String())
	}
	for _, cell := range meta.Cells {
		marked := slices.Contains(doc.Drift.Cells, cell.ID)
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(out, cell.ID, 2), results.ResultFile))
		switch {
		case marked && err != nil:
			t.Errorf("%s, marked drifted, was not measured again: %v", cell.ID, err)
		case marked && (rec.Repetition != 2 || rec.Status != results.StatusOK):
			t.Errorf("%s measured again as repetition %d, %s (%s); want 2, ok", cell.ID, rec.Repetition, rec.Status, rec.Reason)
		case !marked && err == nil:
			t.Errorf("%s, not marked drifted, was measured again", cell.ID)
		}
		if fileExists(results.CellDir(out, cell.ID, 3)) {
			t.Errorf("%s has a third repetition; rerun --drifted measures each marked cell once", cell.ID)
		}
	}
	if n := len(readControls(t, out, control)); n != 5 {
		t.Errorf("%d control records after the rerun, want the run's 5", n)
	}
	removeRun(t, out)
	assertNoContainers(t, cli, meta.RunID)
}

// hogRun is one run of the test's grid with the hog beside its last
// controls: what the verdict reads of it.
type hogRun struct {
	p              ports
	c              cmdline
	out            string
	meta           results.Meta
	control        string
	hogAt          time.Time
	ctrls          []results.Control
	before, beside []float64
	figures        string
}

// runBesideHog runs the test's grid of 4 cells with the control before
// and after each, starts the hog pinned to core once the third control's
// record is written, and reads the controls before and beside it. busy
// says why the host was too busy for the verdict (the controls before
// the hog spread over quietCV), or is empty; the run's stack is kept
// (--keep) either way, for the rerun or the caller's removal.
func runBesideHog(t *testing.T, bin string, cli *client.Client, core string) (hr hogRun, busy string) {
	t.Helper()
	hr.p, hr.out = freePorts(t), filepath.Join(t.TempDir(), "run")
	hr.c = demoRun(t, hr.p, hr.out, "1")
	// the control named: the grid's first cell, on which the hog's shares
	// were chosen (the default would be its middle, web 3)
	hr.c.args = append(hr.c.args, "--web-mult", "1,2,3,4", "--control-every", "1", "--control", "cpu_1__web_1__db_2", "--cpuset", core, "--keep",
		"--retries", "1") // a busy host's hiccup (the database restarting under the first reset) is no drift
	pr := start(t, bin, hr.c)
	hr.meta = waitMeta(t, pr, hr.out)
	if len(hr.meta.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(hr.meta.Cells))
	}
	hr.control = hr.meta.Cells[0].ID
	if hr.control != "cpu_1__web_1__db_2" {
		t.Fatalf("the first cell is %s, not the control named", hr.control)
	}
	third := filepath.Join(results.ControlSeqDir(hr.out, hr.control, 1, 3), results.ResultFile)
	waitFor(t, pr, "the third control's record", func() bool { return fileExists(third) })
	stop, hogAt := startHog(t, cli, hr.meta.RunID, core)
	hr.hogAt = hogAt
	code := pr.wait(t)
	stop()
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}

	hr.figures = controlFigures(t, hr.out, hr.control)
	hr.ctrls = readControls(t, hr.out, hr.control)
	if len(hr.ctrls) != 5 {
		t.Fatalf("%d control records, want 5:\n%s", len(hr.ctrls), hr.figures)
	}
	for i, r := range hr.ctrls {
		if r.Status != results.StatusOK {
			t.Fatalf("control %d is %s (%s), the drift rule reads ok ones:\n%s", i+1, r.Status, r.Reason, hr.figures)
		}
		switch {
		case r.FinishedAt.Before(hogAt):
			hr.before = append(hr.before, r.RPS)
		case r.StartedAt.After(hogAt):
			hr.beside = append(hr.beside, r.RPS)
		}
	}
	if len(hr.before) != 3 || len(hr.beside) != 2 {
		t.Fatalf("%d controls before the hog (started %s) and %d beside it, want 3 and 2:\n%s",
			len(hr.before), hogAt.Format("15:04:05.000"), len(hr.beside), hr.figures)
	}
	cv, _ := confidence.CV(hr.before)
	drop := 1 - stat.Mean(hr.beside, nil)/stat.Mean(hr.before, nil)
	if band := visibleBand(cv); drop <= band {
		return hr, fmt.Sprintf("the hog's drop of the control's RPS (%.0f %%) is within the band of the 3 controls before it (RPS CV %.3f, band %.0f %%), load average %s:\n%s",
			100*drop, cv, 100*band, loadAvg(), hr.figures)
	}
	return hr, ""
}

// visibleBand is the band of the controls before the hog, from their
// coefficient of variation cv, as the drift rule bands a scatter
// (z × √2 × CV at the report's confidence level; report.Noise): a drop of
// the control within it is one no rule could tell from the host's own
// noise, and the test's verdict on the rule would mean nothing. The gate
// is the hog's drop against this run's noise, not a fixed CV: on a quiet
// host three controls of 3 s spread with CV 0.12, 0.155 and 0.212
// (2026-12-04/05), beside a Kubernetes build with 0.263, when the rule
// saw no step.
func visibleBand(cv float64) float64 {
	return distuv.UnitNormal.Quantile(1-confidence.Level/2) * math.Sqrt2 * cv
}

// loadAvg is the host's load average as /proc/loadavg gives it, or why not.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return err.Error()
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// startHog starts, beside the run's stack, a container of its database's
// image running two busy loops pinned to CPU core with twice the default
// CPU shares, once it has checked that the run's target is pinned to
// that CPU alone. The container carries the run's label (so
// the run's cleanup removes it too), ends itself after three minutes,
// and is removed at the end of the test or by stop, which returns when it
// is gone. at is when it started.
func startHog(t *testing.T, cli *client.Client, runID, core string) (stop func(), at time.Time) {
	t.Helper()
	ctx := t.Context()
	// the run may be recreating the target for its next cell (compose v2
	// keeps the old container under a renamed <id>_ name a moment): wait
	// for the one target
	app := containers(t, cli, sweep.LabelRun+"="+runID, "com.docker.compose.service=app")
	for deadline := time.Now().Add(time.Minute); len(app) != 1 && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		app = containers(t, cli, sweep.LabelRun+"="+runID, "com.docker.compose.service=app")
	}
	if len(app) != 1 {
		t.Fatalf("%d target containers of run %s for a minute, want 1", len(app), runID)
	}
	got, err := cli.ContainerInspect(ctx, app[0].ID)
	if err != nil {
		t.Fatalf("inspect the target: %v", err)
	}
	if got.HostConfig.CpusetCpus != core {
		t.Fatalf("target %s runs on CPUs %q, want %q", app[0].Names, got.HostConfig.CpusetCpus, core)
	}
	db := containers(t, cli, sweep.LabelRun+"="+runID, "com.docker.compose.service=db")
	if len(db) != 1 {
		t.Fatalf("%d database containers of run %s, want 1", len(db), runID)
	}
	// Four times the target's shares: at twice them the control beside
	// the hog fell to 0.09-0.19 of its RPS when the test was written, but
	// to 0.45-0.58 on 2026-12-05 (a fresh machine, HEAD and ac54a9b alike),
	// at the edge of the 0.5 the verdict needs.
	hog, err := cpuhog.Start(ctx, cli, cpuhog.Spec{Image: db[0].Image, CPUs: core, Life: 3 * time.Minute, Shares: 4 * 1024,
		Labels: map[string]string{sweep.LabelRun: runID, "sweep.test": "cpu-hog"}})
	if err != nil {
		t.Fatal(err)
	}
	removed := false
	stop = func() {
		if removed {
			return
		}
		if err := hog.Remove(ctx); err != nil {
			t.Error(err)
		}
		removed = true
	}
	t.Cleanup(stop)
	return stop, hog.At
}

// hostMoved reports whether the host moved the control on its own after
// rec, before the hog: a control measured between rec and the hog lies
// further than by (half the hog's drop) from the mean of those
// measured before rec. The drift rule then rightly takes the drift to
// have begun before the hog, and rec may be marked; otherwise a cell
// measured before the hog is not the hog's.
func hostMoved(before []results.Control, rec results.Record, by float64) bool {
	var earlier []float64
	for _, c := range before {
		if c.FinishedAt.Before(rec.StartedAt) {
			earlier = append(earlier, c.RPS)
		}
	}
	level := stat.Mean(earlier, nil)
	for _, c := range before {
		if c.StartedAt.After(rec.FinishedAt) && math.Abs(c.RPS-level) > by {
			return true
		}
	}
	return false
}

// measuredFrom is when rec's measured phase began at the earliest: its
// start plus the phases before it.
func measuredFrom(rec results.Record) time.Time {
	var s float64
	for _, p := range []string{"deps", "prepare", "apply", "ready", "readback", "probe", "reset", "warmup"} {
		s += rec.PhasesS[p]
	}
	return rec.StartedAt.Add(time.Duration(s * float64(time.Second)))
}

// driftDoc is what the test reads of results.json.
type driftDoc struct {
	Noise report.Noise  `json:"noise_bands"`
	Drift *report.Drift `json:"drift"`
	Cells []struct {
		ID      string `json:"id"`
		Drifted bool   `json:"drifted"`
	} `json:"cells"`
}

func readDriftDoc(t *testing.T, out string) driftDoc {
	t.Helper()
	var doc driftDoc
	b, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err == nil {
		err = json.Unmarshal(b, &doc)
	}
	if err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return doc
}

// readControls reads the run's control measurements of cell id on its
// one stack, as the report reads them (results.LoadRun), in their order.
func readControls(t *testing.T, out, id string) []results.Control {
	t.Helper()
	run, err := results.LoadRun(out)
	if err != nil {
		t.Fatalf("load the run: %v", err)
	}
	var cs []results.Control
	for _, rc := range run.Cells {
		for _, c := range rc.Controls {
			if rc.ID == id && c.Lane == 1 && c.Seq > 0 {
				cs = append(cs, c)
			}
		}
	}
	slices.SortFunc(cs, func(a, b results.Control) int { return a.Seq - b.Seq })
	return cs
}

// controlFigures lists the control measurements of cell id, for the log.
func controlFigures(t *testing.T, out, id string) string {
	t.Helper()
	var b strings.Builder
	for i, rec := range readControls(t, out, id) {
		fmt.Fprintf(&b, "c%d %s-%s %s rps %.1f p99 %.2f ms\n", i+1, rec.StartedAt.Format("15:04:05.000"),
			rec.FinishedAt.Format("15:04:05.000"), rec.Status, rec.RPS, rec.LatencyMS.P99)
	}
	return b.String()
}
