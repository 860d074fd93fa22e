package report

import (
	"context"
	"encoding/json"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
)

func writeFixtureFiles(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteFiles(dir, buildFixture(t, name)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestWriteFiles(t *testing.T) {
	t.Parallel()
	dir := writeFixtureFiles(t, "mixed")
	for _, f := range append(slices.Clone(Files), "charts/pareto.svg", "charts/scaling.svg",
		"charts/heatmap-rps-cpu-1.svg", "charts/heatmap-p99-cpu-2.svg") {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	rows := readCSV(t, filepath.Join(dir, "results.csv"))
	// 11 cells: 9 finished ones with 3+3+3+1+3+3+3+2+2 repetitions.
	if len(rows) != 1+23 {
		t.Errorf("results.csv has %d data rows, want 23", len(rows)-1)
	}
	for _, col := range []string{"rps", "latency_p99_ms", "resources.app.cpu_pct_of_limit_mean", "db.sessions_active_peak", "bottleneck"} {
		if !slices.Contains(rows[0], col) {
			t.Errorf("results.csv lacks column %s: %v", col, rows[0])
		}
	}
	var doc map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	for _, key := range []string{"per_cpu", "recommendation", "cells", "scaling", "pool_effect", "missing"} {
		if _, ok := doc[key]; !ok {
			t.Errorf("results.json lacks %q", key)
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(writeFixtureFiles(t, "gop"), "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	// 4 CPU limits x 2 heatmaps + scaling + Pareto.
	if n := strings.Count(html, "<svg"); n != 10 {
		t.Errorf("report.html inlines %d SVGs, want 10", n)
	}
	for _, bad := range []string{"<script", "http://", "https://", "<link"} {
		if strings.Contains(strings.ReplaceAll(html, "http://www.w3.org/", ""), bad) {
			t.Errorf("report.html contains %q: not self-contained", bad)
		}
	}
}

// chromium returns the browser's path, or skips (fails with
// SWEEP_REQUIRE_DOCKER=1, which CI sets after installing it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Absent(t, "chromium is not on PATH (apt-get install chromium to check report.html in a browser)")
	return ""
}

// TestHTMLInChromium renders report.html in headless Chromium and counts
// strongly coloured pixels in a screenshot of its top: tables and text are
// black and grey, so only drawn charts (points, lines, heatmap cells) give
// them.
func TestHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	dir := writeFixtureFiles(t, "gop")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	shot := filepath.Join(dir, "shot.png")
	out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--hide-scrollbars", "--user-data-dir="+t.TempDir(), "--screenshot="+shot,
		"--window-size=1280,6000", "file://"+filepath.Join(dir, "report.html")).CombinedOutput()
	if err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	n := colouredPixels(t, shot)
	t.Logf("%d strongly coloured pixels", n)
	if n < 20000 {
		t.Errorf("screenshot has %d strongly coloured pixels, want >= 20000 (charts not drawn?)", n)
	}
}

func colouredPixels(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			hi, lo := max(c.R, c.G, c.B), min(c.R, c.G, c.B)
			if hi-lo > 60 {
				n++
			}
		}
	}
	return n
}
