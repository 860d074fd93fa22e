package replay

// The replay of halving on interleaved rounds (strategy/halving's
// CutRound; sweep/rungs.go runs it live) from an interleaved grid run:
// every target ran every round, so each rung is decided on the rounds the
// grid measured up to it, exactly as the live run would have decided
// over the same slices, and the targets it drops lose their later
// slices. No noise is simulated: the rounds are real measurements, and
// the paired statistic the rungs read carries their noise. The cost is
// the slices (and their seconds of load) the halving run would have
// measured against the grid's; every target still starts and warms up
// once, as in the grid.

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep"
)

// RoundsResult is what the replay of halving on interleaved rounds found.
type RoundsResult struct {
	RunID  string `json:"run_id"`
	Rounds int    `json:"rounds"`
	Rungs  []int  `json:"rungs"`
	// Groups are the groups of targets the grid ran, each with its rungs'
	// decisions.
	Groups []RoundsGroup `json:"groups"`
	// Slices and GridSlices count the slices measured, LoadS and
	// GridLoadS their seconds of load: the halving run's and the grid's.
	Slices     int     `json:"slices"`
	GridSlices int     `json:"grid_slices"`
	LoadS      float64 `json:"load_s"`
	GridLoadS  float64 `json:"grid_load_s"`
	Picks      []Pick  `json:"picks"`
}

// RoundsGroup is one group of targets and what its rungs dropped; Note
// says why it has no rungs.
type RoundsGroup struct {
	Group   int         `json:"group"`
	CPUs    float64     `json:"cpus"`
	Slice   string      `json:"slice,omitempty"`
	Targets int         `json:"targets"`
	Cuts    []sweep.Cut `json:"cuts,omitempty"`
	Note    string      `json:"note,omitempty"`
	// Stopped says why the group's rounds ended before the last.
	Stopped string `json:"stopped,omitempty"`
}

// ErrNotInterleaved is returned for a run that did not run the
// interleaved schedule's grid.
var ErrNotInterleaved = errors.New("not an interleaved grid run")

// Rounds replays run, an interleaved grid run, through halving on its
// rounds with the report options opts.
func Rounds(run *results.Run, opts report.Options) (*RoundsResult, error) {
	if run.Schedule != sweep.ScheduleInterleaved || run.Strategy == sweep.StrategyHalving {
		return nil, ErrNotInterleaved
	}
	type groupOf struct {
		RoundsGroup
		ids []string
	}
	var groups []*groupOf
	limits := map[string]int{} // groups per CPU limit and slice
	res := &RoundsResult{RunID: run.RunID}
	for _, c := range run.Cells {
		for _, rep := range c.Reps {
			s := rep.LoadSlice
			if s == nil {
				continue
			}
			res.Rounds = max(res.Rounds, s.Round)
			i := slices.IndexFunc(groups, func(g *groupOf) bool { return g.Group == s.Group })
			if i < 0 {
				groups = append(groups, &groupOf{RoundsGroup: RoundsGroup{Group: s.Group, CPUs: c.CPUs, Slice: c.Slice()}})
				limits[sweep.FormatNumber(c.CPUs)+"|"+c.Slice()]++
				i = len(groups) - 1
			}
			if !slices.Contains(groups[i].ids, c.ID) {
				groups[i].ids = append(groups[i].ids, c.ID)
			}
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: no record has a slice of a round", ErrNotInterleaved)
	}
	slices.SortFunc(groups, func(a, b *groupOf) int { return cmp.Compare(a.Group, b.Group) })
	spec := sweep.Spec{Schedule: sweep.ScheduleInterleaved, Strategy: sweep.StrategyHalving, Rounds: res.Rounds}
	res.Rungs = spec.Rungs()
	droppedAfter := map[string]int{}
	for _, g := range groups {
		g.Targets = len(g.ids)
		play := slices.Clone(g.ids)
		if limits[sweep.FormatNumber(g.CPUs)+"|"+g.Slice] > 1 {
			g.Note = "the connection limit split its CPU limit into groups run apart: not paired, no rungs"
		}
		for _, k := range res.Rungs {
			if g.Note != "" {
				break
			}
			cut := halving.CutRound(run, g.CPUs, g.Slice, play, k, opts)
			if len(cut.Drop) == len(play) {
				cut.Drop, cut.Note = nil, "the cut would drop every target; none dropped"
			}
			for _, id := range cut.Drop {
				droppedAfter[id] = k
			}
			play = slices.DeleteFunc(play, func(id string) bool { return slices.Contains(cut.Drop, id) })
			g.Cuts = append(g.Cuts, cut)
			if len(play) == 1 && k < res.Rounds { // as the live run: a round of one pairs with nothing
				droppedAfter[play[0]] = k
				g.Stopped = fmt.Sprintf("one target left after round %d: the group's rounds stop", k)
				break
			}
		}
		res.Groups = append(res.Groups, g.RoundsGroup)
	}
	halved := *run
	halved.Cells = slices.Clone(run.Cells)
	for i, c := range halved.Cells {
		if k, ok := droppedAfter[c.ID]; ok {
			halved.Cells[i] = halving.UpToRound(&results.Run{Cells: []results.RunCell{c}}, []string{c.ID}, k).Cells[0]
		}
	}
	res.GridSlices, res.GridLoadS = run.LoadSlices()
	res.Slices, res.LoadS = halved.LoadSlices()
	grid, err := gridPicks(run, opts)
	if err != nil {
		return nil, err
	}
	got, err := gridPicks(&halved, opts)
	if err != nil {
		return nil, err
	}
	for _, slice := range run.Slices() {
		for i, g := range grid[slice] {
			var h report.Profile
			if i < len(got[slice]) {
				h = got[slice][i]
			}
			res.Picks = append(res.Picks, Pick{Slice: slice, Profile: g.Key, Grid: pairOf(g), Halving: pairOf(h), Agrees: g.Admits(h)})
		}
	}
	return res, nil
}

// WriteRoundsJSON writes the result as one indented JSON document.
func WriteRoundsJSON(w io.Writer, res *RoundsResult) error { return writeJSON(w, res) }

// WriteRoundsText writes the result for a person: each group's rungs,
// the slices against the grid's, and the picks.
func WriteRoundsText(w io.Writer, res *RoundsResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Replay of run %s (interleaved, %d rounds) through halving on its rounds: rungs after rounds %s.\n\n",
		res.RunID, res.Rounds, sweep.RungsText(res.Rungs))
	for _, g := range res.Groups {
		what := sweep.FormatNumber(g.CPUs) + " CPUs"
		if g.Slice != "" {
			what += " (" + g.Slice + ")"
		}
		fmt.Fprintf(&b, "Group %d, %s, %d targets:\n", g.Group, what, g.Targets)
		if g.Note != "" {
			fmt.Fprintf(&b, "  %s\n", g.Note)
		}
		for _, c := range g.Cuts {
			if len(c.Drop) == 0 {
				fmt.Fprintf(&b, "  after round %d: drops nothing (%s); straight on\n", c.AfterRound, c.Note)
				continue
			}
			fmt.Fprintf(&b, "  after round %d: drops %s\n", c.AfterRound, strings.Join(c.Drop, " "))
			for _, id := range c.Drop {
				fmt.Fprintf(&b, "    %s: %s\n", id, c.Why[id])
			}
		}
		if g.Stopped != "" {
			fmt.Fprintf(&b, "  %s\n", g.Stopped)
		}
	}
	share := 0.0
	if res.GridSlices > 0 {
		share = 100 * float64(res.Slices) / float64(res.GridSlices)
	}
	fmt.Fprintf(&b, "\nHalving: %d of the grid's %d slices (%.1f %%), %.0f s of its %.0f s of load; every target still starts and warms up once.\n\n",
		res.Slices, res.GridSlices, share, res.LoadS, res.GridLoadS)
	agree := &Result{Picks: res.Picks, Agreement: map[string]float64{}, Replays: 1}
	for _, p := range res.Picks {
		if _, seen := agree.Agreement[p.Profile]; !seen {
			agree.Agreement[p.Profile] = 1
		}
		if !p.Agrees {
			agree.Agreement[p.Profile] = 0
		}
	}
	writePicks(&b, agree)
	_, err := io.WriteString(w, b.String())
	return err
}
