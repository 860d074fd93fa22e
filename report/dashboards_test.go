package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestReportLinksK6Dashboards: report.html and report.md link the k6
// dashboard of each repetition that has one, from the run directory and
// from a slice's folder; a run without any has no such section.
func TestReportLinksK6Dashboards(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cells := gopCells(t)
	writeRun(t, dir, "study", gopSpec, cells)
	with := []string{cells[0].info.ID, cells[3].info.ID}
	for _, id := range with {
		writeBytes(t, filepath.Join(results.CellDir(dir, id, 1), results.K6DashboardFile), []byte("<html></html>"))
	}
	if err := os.Mkdir(filepath.Join(results.CellDir(dir, cells[1].info.ID, 1), results.K6DashboardFile), 0o755); err != nil {
		t.Fatal(err) // a directory by that name is not a report
	}
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, out, base string }{
		{"run directory", dir, ""},
		{"slice folder", filepath.Join(dir, "slices", "a"), "../../"},
	} {
		if err := WriteFiles(tc.out, rep); err != nil {
			t.Fatal(err)
		}
		html := readText(t, filepath.Join(tc.out, "report.html"))
		md := readText(t, filepath.Join(tc.out, "report.md"))
		for _, id := range with {
			href := tc.base + "cells/" + id + "/r1/" + results.K6DashboardFile
			if !strings.Contains(html, `<li><a href="`+href+`">`+id+` r1</a></li>`) {
				t.Errorf("%s: report.html lacks the link to %s", tc.name, href)
			}
			if !strings.Contains(md, "- ["+id+" r1]("+href+")") {
				t.Errorf("%s: report.md lacks the link to %s", tc.name, href)
			}
		}
		if n := strings.Count(html, results.K6DashboardFile+`"`); n != len(with) {
			t.Errorf("%s: report.html links %d k6 dashboards, want %d", tc.name, n, len(with))
		}
	}

	plain := t.TempDir()
	writeRun(t, plain, "study", gopSpec, cells)
	run, err = results.LoadRun(plain)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err = Build(run, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(plain, rep); err != nil {
		t.Fatal(err)
	}
	if html := readText(t, filepath.Join(plain, "report.html")); strings.Contains(html, "k6 dashboards") {
		t.Error("a run without k6 dashboards has a section for them")
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
