package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestPickInsideTheSet: at a CPU limit the pick among cells the data
// cannot separate is the one with the fewest threads, then the smallest
// pool, whichever measured best; a cell separated from every other is
// the pick itself.
func TestPickInsideTheSet(t *testing.T) {
	t.Parallel()
	cell := func(web, pool int) *Cell {
		return &Cell{CellInfo: results.CellInfo{ID: fmt.Sprintf("w%dp%d", web, pool), WebThreads: web, DBPool: pool}}
	}
	for _, tc := range []struct {
		name       string
		best       *Cell
		ties       []*Cell
		want, note string
	}{
		{"a set of three: the fewest threads", cell(4, 8), []*Cell{cell(3, 12), cell(2, 6)}, "w2p6",
			"the data cannot separate 3 pairs; picked the fewest threads, then the smallest pool; measured best: web 4 pool 8"},
		{"ties in threads: the smallest pool", cell(4, 10), []*Cell{cell(4, 6), cell(4, 8), cell(5, 5)}, "w4p6",
			"the data cannot separate 4 pairs; picked the fewest threads, then the smallest pool; measured best: web 4 pool 10"},
		{"the measured best is the fewest already", cell(2, 3), []*Cell{cell(2, 4), cell(3, 3)}, "w2p3",
			"the data cannot separate 3 pairs; picked the fewest threads, then the smallest pool"},
		{"a set of one: that cell", cell(6, 12), nil, "w6p12", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := Pick{Cell: tc.best, Ties: tc.ties}
			got := p.Chosen()
			if got.ID != tc.want || p.Note() != tc.note {
				t.Errorf("picked %s (%q), want %s (%q)", got.ID, p.Note(), tc.want, tc.note)
			}
			others := p.Others()
			if len(others) != len(tc.ties) || slices.Contains(others, got) || !slices.Contains(p.Set(), got) {
				t.Errorf("others %v of the set %v: want every cell but the pick", ids(others), ids(p.Set()))
			}
		})
	}
	if (Pick{}).Chosen() != nil || (Pick{}).Note() != "" {
		t.Error("no pick chose a cell")
	}
}

// TestProfilePickInsideTheSet: across CPU limits a profile picks, in
// the set the data cannot separate, the pair with the fewest threads,
// then the smallest pool, and keeps the measured best beside it. At one
// CPU limit, pairs web 1–4 × pool 2 measured once at 1000, 1020, 1010
// and 800 RPS: 1020 (web 2) measured best, 1000 and 1010 within the
// noise of it, 800 not. With controls measuring 10 % noise, and with the
// noise not measured at the assumed 5 % (the --noise flag's default),
// the set is web 1–3 and the pick web 1. With --noise 0.5 % and still
// no control, the assumed band separates them: the set is the measured
// best alone, and it is the pick.
func TestProfilePickInsideTheSet(t *testing.T) {
	t.Parallel()
	figs := [][2]float64{{1000, 20}, {1020, 20}, {1010, 20}, {800, 20}}
	narrow := DefaultOptions()
	narrow.NoiseBand = 0.005
	for _, tc := range []struct {
		name     string
		controls []ctl
		opts     Options
		measured bool
		pick     [2]float64
		set      int
	}{
		{"measured noise", wideControls, DefaultOptions(), true, [2]float64{1, 2}, 3},
		{"noise not measured, assumed 5 %", nil, DefaultOptions(), false, [2]float64{1, 2}, 3},
		{"noise not measured, --noise 0.5 %", nil, narrow, false, [2]float64{2, 2}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep, err := Build(controlRun(t, figs, tc.controls), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := rep.Profile("throughput")
			if rep.Noise.Measured != tc.measured || p.Best != [2]float64{2, 2} {
				t.Fatalf("measured %v, best %v: want %v, 2 × 2", rep.Noise.Measured, p.Best, tc.measured)
			}
			if got := [2]float64{p.WebMult, p.DBMult}; got != tc.pick || len(p.Set()) != tc.set || len(p.Likely) != 0 {
				t.Errorf("picked %v of the set %v (likely %v), want %v of %d", got, p.Set(), p.Likely, tc.pick, tc.set)
			}
			row := rep.PerCPU[0].PickFor("throughput")
			if c := row.Chosen(); c.WebMult != tc.pick[0] || len(row.Set()) != tc.set {
				t.Errorf("the CPU limit's pick %s of %d, want web %g × of %d", c.ID, len(row.Set()), tc.pick[0], tc.set)
			}
			var term bytes.Buffer
			if err := WriteTerminal(&term, rep, MetricRPS); err != nil {
				t.Fatal(err)
			}
			out := strings.Join(strings.Fields(term.String()), " ")
			settled := "1 throughput-first 1 2 cpu_1__web_1__db_2 3 pairs; best 2/4"
			if tc.set == 1 {
				settled = "1 throughput-first 2 4 cpu_1__web_2__db_4 none"
			}
			if !strings.Contains(out, settled) {
				t.Errorf("the headline lacks the row %q:\n%s", settled, term.String())
			}
			if got := strings.Contains(out, "Noise not measured"); got == tc.measured {
				t.Errorf("says the noise was not measured: %v, measured %v", got, tc.measured)
			}
			var md bytes.Buffer
			if err := WriteMarkdown(&md, rep, nil, ChartDir); err != nil {
				t.Fatal(err)
			}
			note := "The data cannot separate 3 pairs; picked the fewest threads, then the smallest pool; " +
				"measured best: web 2 × CPUs, pool 2 × web."
			if got := strings.Contains(md.String(), note); got != (tc.set == 3) {
				t.Errorf("report.md says %q: %v, want %v", note, got, tc.set == 3)
			}
		})
	}
}

// TestCalibratedSetMovesThePick: a pair that joins the set only as a
// likely re-run pick (Calibrate) is in the set all the same; with fewer
// threads than the measured best it becomes the pick. Two pairs 4.6 % apart, beyond the 4.1 % band the controls measure: the
// data separates them, so BuildPicks picks the measured best, web 2; a
// re-run picks web 1 in about 6 % of runs, so it joins the calibrated
// set and Build picks it.
func TestCalibratedSetMovesThePick(t *testing.T) {
	t.Parallel()
	run := controlRun(t, [][2]float64{{1000, 20}, {1046, 20}}, []ctl{{1000, 20}, {1020, 20}, {980, 20}, {1000, 20}, {1010, 20}})
	picks, err := BuildPicks(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := picks.Profile("throughput"); p.WebMult != 2 || len(p.Set()) != 1 {
		t.Fatalf("without calibration picked %g × of %v, want the measured best 2 × alone", p.WebMult, p.Set())
	}
	rep, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := rep.Profile("throughput")
	if p.WebMult != 1 || p.Best != [2]float64{2, 2} || !slices.Equal(p.Likely, [][2]float64{{1, 2}}) {
		t.Errorf("picked %g × (best %v, likely %v): want web 1 × of the calibrated set, the best 2 × beside it",
			p.WebMult, p.Best, p.Likely)
	}
	if p.PickNote() != "the data cannot separate 2 pairs; picked the fewest threads, then the smallest pool; "+
		"measured best: web 2 × CPUs, pool 2 × web" {
		t.Errorf("pick note %q", p.PickNote())
	}
}
