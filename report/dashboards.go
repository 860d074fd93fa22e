package report

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/sweep-tool/sweep/results"
)

// K6Dashboard is one cell repetition's k6 web dashboard report
// (results.K6DashboardFile), found in its directory.
type K6Dashboard struct {
	Cell string
	Rep  int
	// Path is the file's path relative to the run directory, with
	// forward slashes.
	Path string
}

// link is a hyperlink of a section: its text and its target relative to
// the report.
type link struct{ Text, Href string }

// findK6Dashboards lists the repetitions of run whose directory holds
// k6's dashboard report, in plan order.
func findK6Dashboards(run *results.Run) []K6Dashboard {
	var out []K6Dashboard
	for _, c := range run.Cells {
		for _, r := range c.Reps {
			rel := filepath.Join(results.CellDir("", c.ID, r.Repetition), results.K6DashboardFile)
			if st, err := os.Stat(filepath.Join(run.Dir, rel)); err == nil && st.Mode().IsRegular() {
				out = append(out, K6Dashboard{Cell: c.ID, Rep: r.Repetition, Path: filepath.ToSlash(rel)})
			}
		}
	}
	return out
}

// k6DashboardSection links each repetition's k6 dashboard; ok is false
// when the run has none.
func k6DashboardSection(rep *Report) (sec section, ok bool) {
	if len(rep.K6Dashboards) == 0 {
		return section{}, false
	}
	sec = section{Heading: "k6 dashboards", Paras: []string{"k6's web dashboard report of each cell's measured phase, " +
		"one self-contained page per cell repetition."}}
	for _, d := range rep.K6Dashboards {
		sec.Links = append(sec.Links, link{Text: fmt.Sprintf("%s r%d", d.Cell, d.Rep), Href: path.Join(rep.linkBase, d.Path)})
	}
	return sec, true
}

// from returns a copy of rep whose links resolve from dir, where its
// files are written, to the run directory (a slice's report sits in
// slices/<slice>/).
func (r *Report) from(dir string) *Report {
	out := *r
	if r.run == nil {
		return &out
	}
	base, errB := filepath.Abs(r.run.Dir)
	at, errA := filepath.Abs(dir)
	if rel, err := filepath.Rel(at, base); errA == nil && errB == nil && err == nil {
		out.linkBase = filepath.ToSlash(rel)
	}
	return &out
}
