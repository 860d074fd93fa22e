package main

import (
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/metrics/live/livetest"
	"github.com/sweep-tool/sweep/results"
)

// TestLiveFlagsRefusedBeforeAnythingStarts: a --metrics-addr that cannot
// be served, or --k6-dashboard without k6, is exit 2 naming the flag,
// and no run directory is made. The compose file does not exist, so a
// check that came too late would name --compose instead.
func TestLiveFlagsRefusedBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() })
	for _, tc := range []struct {
		name  string
		extra []string
		want  []string
	}{
		{"no port", []string{"--metrics-addr", "127.0.0.1"}, []string{"--metrics-addr", "missing port"}},
		{"bad port", []string{"--metrics-addr", "127.0.0.1:ninety"}, []string{"--metrics-addr", "ninety"}},
		{"taken", []string{"--metrics-addr", taken.Addr().String()}, []string{"--metrics-addr", "address already in use"}},
		{"dashboard with builtin", []string{"--k6-dashboard"}, []string{"--k6-dashboard", "--driver builtin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{"run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
				"--driver", "builtin", "--compose", "/nonexistent/compose.yaml", "--out", out}, tc.extra...)
			code, _, stderr := runCLI(t, args...)
			if code != exitBadInput {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the run directory was made (%v)", err)
			}
		})
	}
}

// TestK6DashboardNeedsK6: with no k6 to be found, --k6-dashboard is
// refused rather than falling back to the built-in driver.
func TestK6DashboardNeedsK6(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	code, _, stderr := runCLI(t, "run", "--cpus", "1", "--service", "app", "--url", "http://127.0.0.1:1",
		"--compose", "/nonexistent/compose.yaml", "--out", filepath.Join(t.TempDir(), "run"), "--k6-dashboard")
	if code != exitBadInput || !strings.Contains(stderr, "--k6-dashboard") {
		t.Errorf("exit %d, want 2 naming --k6-dashboard; stderr %q", code, stderr)
	}
}

// liveSecond is one scrape taken while a cell was measured.
type liveSecond struct {
	cell                       string // sweep_cell_info's
	seriesCell                 string // the per-second series'
	rps, p99, errRatio, cpu, n float64
	hasP99, hasCPU, hasDB      bool
}

// TestLiveMetricsOfARealRun scrapes `sweep run --metrics-addr` over HTTP
// all through a two-cell demo run and holds what it saw against the
// records: the cell named while measuring is the cell whose series are
// served, each scraped second is a row of that cell's samples.csv, the
// scraped RPS sits near the record's, the CPU and sessions within the
// record's peaks, and at the end every cell is counted done.
func TestLiveMetricsOfARealRun(t *testing.T) {
	bin, _ := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", testenv.FreePort(t))
	c := demoRun(t, p, out, "0.5,1")
	c.args = append(c.args, "--duration", "6s", "--metrics-addr", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics"))
	pr := start(t, bin, c)
	seen, last := watchLive(t, pr, url)
	if code := pr.wait(t); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	if last == nil {
		t.Fatalf("no scrape of %s answered\nstderr:\n%s", url, pr.stderr.String())
	}
	meta := readMeta(t, out)
	for _, cell := range meta.Cells {
		checkLiveCell(t, out, cell.ID, seen[cell.ID])
	}
	for name, want := range map[string]float64{"sweep_cells_done": 2, "sweep_cells_planned": 2,
		"sweep_cells_failed_total": 0, "sweep_eta_seconds": 0} {
		if got := livetest.Series(last, name); len(got) != 1 || got[""] != want {
			t.Errorf("last scrape: %s = %v, want %g", name, got, want)
		}
	}
	if got := livetest.Series(last, "sweep_cell_info"); len(got) != 0 {
		t.Errorf("last scrape: a running cell after the last record: %v", got)
	}
	if _, err := livetest.TryScrape(t, url); err == nil {
		t.Errorf("%s still answers after the run ended", url)
	}
}

// watchLive scrapes url every 200 ms until the process exits. It returns
// the scrapes taken in a measured second, by cell, and the last scrape
// that answered.
func watchLive(t *testing.T, pr *proc, url string) (map[string][]liveSecond, map[string]*dto.MetricFamily) {
	t.Helper()
	seen := map[string][]liveSecond{}
	var last map[string]*dto.MetricFamily
	for !pr.exited() && time.Since(pr.began) < procTimeout {
		time.Sleep(200 * time.Millisecond)
		fams, err := livetest.TryScrape(t, url)
		if err != nil {
			continue // not serving yet, or no more
		}
		last = fams
		if s, ok := measuredSecond(fams); ok {
			seen[s.cell] = append(seen[s.cell], s)
		}
	}
	return seen, last
}

// measuredSecond reads a scrape taken in a measured phase once its first
// second is served.
func measuredSecond(fams map[string]*dto.MetricFamily) (liveSecond, bool) {
	var s liveSecond
	for labels := range livetest.Series(fams, "sweep_cell_info") {
		if l := labelMap(labels); l["phase"] == "measure" {
			s.cell = l["cell"]
		}
	}
	rps := livetest.Series(fams, "sweep_requests_per_second")
	if s.cell == "" || len(rps) != 1 {
		return s, false
	}
	for labels, v := range rps {
		s.seriesCell, s.rps = labelMap(labels)["cell"], v
	}
	one := func(name string) (float64, bool) {
		for _, v := range livetest.Series(fams, name) {
			return v, true
		}
		return 0, false
	}
	s.p99, s.hasP99 = one("sweep_latency_p99_seconds")
	s.errRatio, _ = one("sweep_error_ratio")
	s.cpu, s.hasCPU = one("sweep_target_cpu_ratio")
	s.n, s.hasDB = one("sweep_db_sessions")
	return s, true
}

func labelMap(labels string) map[string]string {
	out := map[string]string{}
	for kv := range strings.SplitSeq(labels, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

// checkLiveCell holds one cell's scraped seconds against its record and
// samples.csv.
func checkLiveCell(t *testing.T, out, id string, secs []liveSecond) {
	t.Helper()
	rec := readRecord(t, out, id)
	ivs, err := results.ReadIntervals(filepath.Join(results.CellDir(out, id, 1), results.SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) < 3 {
		t.Fatalf("%s: %d scrapes in its measured phase, want at least 3", id, len(secs))
	}
	var rps []float64
	var unmatched []string
	var cpu, sessions float64
	for _, s := range secs {
		cpu, sessions = max(cpu, s.cpu), max(sessions, s.n)
		if s.seriesCell != id {
			t.Errorf("%s: measured while the per-second series named %s", id, s.seriesCell)
		}
		rps = append(rps, s.rps)
		if !slices.ContainsFunc(ivs, func(iv results.Interval) bool {
			return math.Abs(float64(iv.Requests)-s.rps) <= 1 && (!s.hasP99 || math.Abs(iv.P99MS-1000*s.p99) < 0.01)
		}) {
			unmatched = append(unmatched, fmt.Sprintf("rps %.1f p99 %.2f ms", s.rps, 1000*s.p99))
		}
		if s.errRatio != 0 && rec.ErrorRate == 0 {
			t.Errorf("%s: scraped error ratio %g, the record has no errors", id, s.errRatio)
		}
		checkLiveReadings(t, rec, s)
	}
	if len(unmatched) > 1 { // two intervals ending in one second share a row
		t.Errorf("%s: %d of %d scraped seconds are no row of samples.csv: %v", id, len(unmatched), len(secs), unmatched)
	}
	slices.Sort(rps)
	med := rps[len(rps)/2]
	if med < 0.5*rec.RPS || med > 1.5*rec.RPS {
		t.Errorf("%s: scraped RPS median %.1f, record %.1f: outside 0.5–1.5×", id, med, rec.RPS)
	}
	t.Logf("%s: %d scrapes while measured; scraped RPS %.1f–%.1f (median %.1f), record %.1f rps, p99 %.2f ms; "+
		"scraped CPU up to %.2f of the limit, DB sessions up to %g (record: CPU %.0f %% mean, sessions peak %d)",
		id, len(secs), rps[0], rps[len(rps)-1], med, rec.RPS, rec.LatencyMS.P99, cpu, sessions,
		rec.Resources["app"].CPUPctOfLimitMean, rec.DB.Sessions.TotalPeak)
}

// checkLiveReadings: the samplers' readings served are the ones the
// record summarises, so none exceeds its peaks.
func checkLiveReadings(t *testing.T, rec results.Record, s liveSecond) {
	t.Helper()
	res, ok := rec.Resources["app"] // the demo's target
	if !ok || rec.DB == nil {
		t.Fatalf("%s: the record lacks the target's resources or the database's block", rec.Cell.ID)
	}
	if s.hasCPU && (s.cpu <= 0 || s.cpu > 1.02*res.CPUCoresMax/res.CPULimitCores) {
		t.Errorf("%s: scraped CPU %.3f of the limit, the record's peak %.3f", rec.Cell.ID, s.cpu,
			res.CPUCoresMax/res.CPULimitCores)
	}
	if s.hasDB && (s.n < 1 || s.n > float64(rec.DB.Sessions.TotalPeak)) {
		t.Errorf("%s: scraped %g DB sessions, the record's peak %d", rec.Cell.ID, s.n, rec.DB.Sessions.TotalPeak)
	}
}

// TestK6DashboardOnDemo runs one demo cell with the real k6 and
// --k6-dashboard: the measured phase leaves k6's HTML report in the cell
// directory and report.html links it. It skips without k6 on PATH or
// without an engine.
func TestK6DashboardOnDemo(t *testing.T) {
	k6 := testenv.K6(t)
	bin, _ := demo(t)
	p, out := freePorts(t), filepath.Join(t.TempDir(), "run")
	code, pr := runSweep(t, bin, k6Run(t, p, out, k6, "vus=3", "--k6-dashboard"))
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, pr.stderr.String())
	}
	id := readMeta(t, out).Cells[0].ID
	page, err := os.ReadFile(filepath.Join(results.CellDir(out, id, 1), results.K6DashboardFile))
	if err != nil || !strings.Contains(strings.ToLower(string(page[:min(len(page), 512)])), "<html") {
		t.Fatalf("k6's dashboard report: %v, %d bytes, want an HTML page", err, len(page))
	}
	report, err := os.ReadFile(filepath.Join(out, "report.html"))
	if href := "cells/" + id + "/r1/" + results.K6DashboardFile; err != nil || !strings.Contains(string(report), `href="`+href+`"`) {
		t.Errorf("report.html does not link %s (%v)", href, err)
	}
	t.Logf("%s: k6 dashboard report of %d bytes", id, len(page))
}
