package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// The paired statistic of an interleaved run (sweep.ScheduleInterleaved).
// Every target of a group ran at once and each round gave each one slice
// of load, so a slow change of the host moves every slice of a round
// alike. Each slice is therefore read against its round: its ratio to the
// median of the round's ok slices (RPS and p99 apart), times the group's
// level (the mean over rounds of those medians), so the figure stays in
// requests per second and milliseconds. A cell's figure is the mean over
// its rounds of these, its interval Student's t across them (the report's
// estimate over repetitions, one a round): what the host did to a whole
// round cancels, what stays is how the cells differ from round to round.
// The rounds are the noise; no control cell runs. A round inside which
// the host's level stepped is cut at the step, each piece read against
// its own median (pieces.go).
//
// Not paired, their own figures kept: a group of one target, the slice
// of a round in which no other target of its group finished ok (left
// out), and every group of a CPU limit the connection limit split into
// several (its groups ran at different times, so their rounds are not
// one another's; each cell's interval across its rounds then carries the
// host's drift too).

// Pairing says how the report read an interleaved run's figures; nil for
// a sequential run.
type Pairing struct {
	// Groups counts the groups of targets that ran at once, Rounds the
	// most rounds one of them finished, Paired the cells read against
	// their rounds.
	Groups int `json:"groups"`
	Rounds int `json:"rounds"`
	Paired int `json:"paired_cells"`
	// Split lists the CPU limits (with their slice) whose targets ran in
	// several groups, compared by their own figures; Alone the cells of a
	// group of one.
	Split []string `json:"split,omitempty"`
	Alone []string `json:"alone,omitempty"`
	// Dropped counts the ok slices left out: no other target of their
	// group finished its slice of that round ok.
	Dropped int `json:"dropped_slices,omitempty"`
	// Cut counts the rounds cut where the host changed inside them
	// (pieces.go): each piece read against its own median.
	Cut int `json:"rounds_cut,omitempty"`

	// rounds are each paired cell's ok slices as read against their
	// pieces of rounds, by round, with the cell's group: what two cells
	// of one group are compared by (pairedWith). Two slices of one
	// piece keep the ratio they were measured at; two on either side of
	// a step inside their round have the step taken out.
	rounds map[string]pairedRounds
}

// pairedRounds are one paired cell's ok slices by round, as read
// against their pieces of rounds, and the group they ran in.
type pairedRounds struct {
	group int
	by    map[int]results.Record
}

// Sentence says how the figures were read, for the report's noise note.
func (p *Pairing) Sentence() string {
	s := fmt.Sprintf("interleaved: %d groups of targets ran at once, up to %d rounds each; %d cells' figures are paired by round "+
		"(each slice's ratio to its round's median, RPS and p99 apart, times the group's mean level), "+
		"their intervals Student's t across the rounds, which are the noise: no control cell ran; "+
		"two cells of a group are told apart by the ratio of their slices round by round",
		p.Groups, p.Rounds, p.Paired)
	if len(p.Split) > 0 {
		s += "; the connection limit split " + strings.Join(p.Split, ", ") +
			" into groups run apart, compared by their own figures (their intervals carry the host's drift)"
	}
	if len(p.Alone) > 0 {
		s += fmt.Sprintf("; %d cell(s) alone in their group, by their own figures", len(p.Alone))
	}
	if p.Dropped > 0 {
		s += fmt.Sprintf("; %d slice(s) left out, no other target of their round finished ok", p.Dropped)
	}
	if p.Cut > 0 {
		s += fmt.Sprintf("; %d round(s) cut where the host's level stepped inside them, each piece read against its own median", p.Cut)
	}
	return s
}

// sliceAt is one ok slice: cell i's repetition j.
type sliceAt struct{ cell, rep int }

// pairRun returns run with the figures of its interleaved slices read
// against their rounds (see above), and how; run itself and nil for a
// sequential run. run is not changed: the records keep what was measured.
func pairRun(run *results.Run) (*results.Run, *Pairing) {
	if run.Schedule != sweep.ScheduleInterleaved {
		return run, nil
	}
	type key struct{ group, round int }
	rounds := map[key][]sliceAt{}
	groups := map[int][]int{} // cells by group
	limits := map[string]map[int]bool{}
	for i, rc := range run.Cells {
		for j, rep := range rc.Reps {
			s := rep.LoadSlice
			if s == nil {
				continue
			}
			if !slices.Contains(groups[s.Group], i) {
				groups[s.Group] = append(groups[s.Group], i)
			}
			limit := sweep.FormatNumber(rc.CPUs) + " CPUs"
			if sl := rc.Slice(); sl != "" {
				limit += " (" + sl + ")"
			}
			if limits[limit] == nil {
				limits[limit] = map[int]bool{}
			}
			limits[limit][s.Group] = true
			if rep.Status == results.StatusOK {
				rounds[key{s.Group, s.Round}] = append(rounds[key{s.Group, s.Round}], sliceAt{i, j})
			}
		}
	}
	p := &Pairing{Groups: len(groups)}
	split := map[int]bool{}
	for limit, gs := range limits {
		if len(gs) > 1 {
			p.Split = append(p.Split, limit)
			for g := range gs {
				split[g] = true
			}
		}
	}
	slices.Sort(p.Split)
	out := *run
	out.Cells = slices.Clone(run.Cells)
	for i := range out.Cells {
		out.Cells[i].Reps = slices.Clone(run.Cells[i].Reps)
	}
	drop := map[sliceAt]bool{}
	for g, cells := range groups {
		switch {
		case len(cells) < 2:
			p.Alone = append(p.Alone, run.Cells[cells[0]].ID)
		case !split[g]:
			p.Paired += len(cells)
			pairGroup(&out, g, func(k int) []sliceAt { return rounds[key{g, k}] }, drop, p)
			p.keepRounds(&out, g, cells)
		}
	}
	slices.Sort(p.Alone)
	if len(drop) > 0 {
		for i := range out.Cells {
			reps := out.Cells[i].Reps[:0:0]
			for j, rep := range out.Cells[i].Reps {
				if !drop[sliceAt{i, j}] {
					reps = append(reps, rep)
				}
			}
			out.Cells[i].Reps = reps
		}
	}
	return &out, p
}

// of is cell id's measured rounds; nil when the cell is not paired (or
// for a sequential run, p nil).
func (p *Pairing) of(id string) *pairedRounds {
	if p == nil {
		return nil
	}
	if pr, ok := p.rounds[id]; ok {
		return &pr
	}
	return nil
}

// keepRounds records, for each of group g's cells, its ok slices of run
// by round as run has them (the paired figures).
func (p *Pairing) keepRounds(run *results.Run, g int, cells []int) {
	if p.rounds == nil {
		p.rounds = map[string]pairedRounds{}
	}
	for _, i := range cells {
		pr := pairedRounds{group: g, by: map[int]results.Record{}}
		for _, rep := range run.Cells[i].Reps {
			if s := rep.LoadSlice; s != nil && s.Group == g && rep.Status == results.StatusOK && rep.RPS > 0 && rep.LatencyMS.P99 > 0 {
				pr.by[s.Round] = rep.Record
			}
		}
		p.rounds[run.Cells[i].ID] = pr
	}
}

// pairGroup reads the ok slices of group g against their rounds in out
// (round k's slices from of), marking in drop the slices alone in theirs.
func pairGroup(out *results.Run, g int, of func(round int) []sliceAt, drop map[sliceAt]bool, p *Pairing) {
	maxRound := 0
	for _, cell := range out.Cells {
		for _, rep := range cell.Reps {
			if s := rep.LoadSlice; s != nil && s.Group == g {
				maxRound = max(maxRound, s.Round)
			}
		}
	}
	// With halving on the rounds (sweep.Spec.Rungs) a rung drops the
	// weaker targets, so a later round's median would be the stronger
	// ones' and read the same cell lower than an earlier round did. Each
	// round is therefore read against the targets still in play in the
	// group's last round (every target of a grid run), in every round
	// where two or more of them finished ok; elsewhere against all its ok
	// slices.
	last := map[int]bool{}
	for i, cell := range out.Cells {
		for _, rep := range cell.Reps {
			if s := rep.LoadSlice; s != nil && s.Group == g && s.Round == maxRound {
				last[i] = true
			}
		}
	}
	var order []timed
	for k := 1; k <= maxRound; k++ {
		sl := of(k)
		if len(sl) < 2 {
			for _, s := range sl {
				drop[s] = true
				p.Dropped++
			}
			continue
		}
		for _, s := range sl {
			order = append(order, timed{at: s, round: k, place: out.Cells[s.cell].Reps[s.rep].LoadSlice.Position})
		}
		p.Rounds = max(p.Rounds, k)
	}
	slices.SortFunc(order, func(a, b timed) int { return cmp.Or(cmp.Compare(a.round, b.round), cmp.Compare(a.place, b.place)) })
	rec := func(s sliceAt) *results.Record { return &out.Cells[s.cell].Reps[s.rep].Record }
	// medians are the RPS and p99 medians of sl's slices of the targets
	// still in play in the last round, or of all of them when fewer
	// than two of those are in sl
	medians := func(sl []sliceAt) [2]float64 {
		ref := slices.DeleteFunc(slices.Clone(sl), func(s sliceAt) bool { return !last[s.cell] })
		if len(ref) < 2 {
			ref = sl
		}
		rps, p99 := make([]float64, len(ref)), make([]float64, len(ref))
		for i, s := range ref {
			rps[i], p99[i] = rec(s).RPS, rec(s).LatencyMS.P99
		}
		return [2]float64{median(rps), median(p99)}
	}
	val := func(s sliceAt) [2]float64 { return [2]float64{rec(s).RPS, rec(s).LatencyMS.P99} }
	pieces, ms, cut := readPieces(order, val, medians)
	p.Cut += cut
	var medR, medP []float64
	for i := range pieces {
		medR, medP = append(medR, ms[i][0]), append(medP, ms[i][1])
	}
	levelR, levelP := stat.Mean(medR, nil), stat.Mean(medP, nil)
	for i, piece := range pieces {
		for _, s := range piece {
			r := rec(s)
			if ms[i][0] > 0 {
				r.RPS = levelR * r.RPS / ms[i][0]
			}
			if ms[i][1] > 0 {
				r.LatencyMS.P99 = levelP * r.LatencyMS.P99 / ms[i][1]
			}
		}
	}
}

// median is the middle of xs (the mean of the two middle ones for an
// even count); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
