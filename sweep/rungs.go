package sweep

// Successive halving on the interleaved schedule (Spec.Strategy halving
// with Spec.Schedule interleaved). The rounds of a group are the rungs:
// after round FirstRung, then after each doubling of the rounds (3, 6,
// 12, … before MaxRounds), the strategy (Runner.Cut) reads the group's
// paired figures of the rounds so far and names the targets the data
// separates from every profile's best; those targets are stopped and
// run no more rounds. The slices a target measured before it was dropped
// stay its repetitions (cells/<id>/r<k>), so a screen counts toward the
// final: there is no separate screening measurement, and every slice a
// halving run measures is a slice the interleaved grid would have
// measured. A rung that can drop nothing says so and the rounds go
// straight on. A group the connection limit split (its rounds are not
// paired) has no rungs, and a rung that leaves one target ends the
// group's rounds (RoundsFile): a round of one pairs with nothing. Each rung's decision is kept in the group's
// folder (RungsFile), so a resume owes the rounds of the targets still in
// play and never decides a rung again.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// FirstRung is the round after which the first rung decides: three
// rounds give a t interval across rounds two degrees of freedom.
const FirstRung = 3

// RungsFile, in a group's folder (results.GroupDir), holds the group's
// rung decisions in order.
const RungsFile = "rungs.json"

// Cut is one rung's decision for a group: the cells (ids) it drops and,
// for each, why the data separates it from the best; Note says, when
// nothing drops, why.
type Cut struct {
	AfterRound int               `json:"after_round"`
	Drop       []string          `json:"dropped,omitempty"`
	Why        map[string]string `json:"why,omitempty"`
	Note       string            `json:"note,omitempty"`
}

// HalvingRounds reports whether s runs successive halving on the
// interleaved schedule's rounds.
func (s Spec) HalvingRounds() bool {
	return s.Interleaved() && s.Strategy == StrategyHalving
}

// Rungs are the rounds after which a halving run on the interleaved
// schedule decides what to drop: FirstRung, then doubling, each before
// the last round MaxRounds (after it there is nothing to save). None
// without halving on interleaved rounds.
func (s Spec) Rungs() []int {
	if !s.HalvingRounds() {
		return nil
	}
	var out []int
	for k := FirstRung; k < s.MaxRounds(); k *= 2 {
		out = append(out, k)
	}
	return out
}

// RungsText lists rung rounds for a person: "3, 6, 12", or "none".
func RungsText(rungs []int) string {
	s := make([]string, len(rungs))
	for i, k := range rungs {
		s[i] = strconv.Itoa(k)
	}
	return cmp.Or(strings.Join(s, ", "), "none")
}

// rungs are the rung rounds of group g: none for a group the connection
// limit split.
func (r *Runner) rungs(g TargetGroup) []int {
	if g.Parts > 1 {
		return nil
	}
	return r.Spec.Rungs()
}

// readCuts reads g's recorded rung decisions; none when it has none.
func (r *Runner) readCuts(g TargetGroup) ([]Cut, error) {
	b, err := os.ReadFile(filepath.Join(results.GroupDir(r.Dir, g.Index), RungsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cuts []Cut
	if err := json.Unmarshal(b, &cuts); err != nil {
		return nil, fmt.Errorf("%s of group %d: %w", RungsFile, g.Index, err)
	}
	return cuts, nil
}

// inPlay is g with only the cells no cut before round k dropped.
func inPlay(g TargetGroup, cuts []Cut, k int, shape PoolShape) TargetGroup {
	out := g
	out.Cells = slices.DeleteFunc(slices.Clone(g.Cells), func(c Cell) bool {
		return slices.ContainsFunc(cuts, func(cut Cut) bool { return cut.AfterRound < k && slices.Contains(cut.Drop, c.ID) })
	})
	out.Conns = 0
	for _, c := range out.Cells {
		out.Conns += shape.Conns(c.DBPool, c.WebThreads)
	}
	return out
}

// settleCuts decides, before g's targets start, every rung whose rounds
// are all done but whose decision is not recorded (a run stopped between
// the rung's last slice and its decision), and returns g's cuts.
func (r *Runner) settleCuts(g TargetGroup, rounds int) ([]Cut, error) {
	cuts, err := r.readCuts(g)
	if err != nil {
		return nil, err
	}
	shape := r.Spec.PoolShape(r.Replicas)
	for _, k := range r.rungs(g) {
		if k > rounds || slices.ContainsFunc(cuts, func(c Cut) bool { return c.AfterRound == k }) {
			continue
		}
		play := inPlay(g, cuts, k, shape)
		for j := 1; j <= k; j++ {
			if slices.ContainsFunc(play.Cells, func(c Cell) bool { return !r.doneSlice(c, j) }) {
				return cuts, nil // rung k's rounds are owed yet
			}
		}
		if cuts, err = r.cutAfter(g, play, k, cuts); err != nil {
			return nil, err
		}
	}
	return cuts, nil
}

// cutAfter decides rung k of g (play its cells in play), records it after
// cuts and logs it: what dropped and why, or that nothing could.
func (r *Runner) cutAfter(g, play TargetGroup, k int, cuts []Cut) ([]Cut, error) {
	cut := Cut{Note: "no strategy reads the rounds"}
	if r.Cut != nil {
		var err error
		if cut, err = r.Cut(play, k); err != nil {
			return cuts, fmt.Errorf("group %d, rung after round %d: %w", g.Index, k, err)
		}
	}
	cut.AfterRound = k
	cut.Drop = slices.DeleteFunc(cut.Drop, func(id string) bool {
		return !slices.ContainsFunc(play.Cells, func(c Cell) bool { return c.ID == id })
	})
	if len(cut.Drop) == len(play.Cells) { // never the whole group: the cut is relative to a best
		cut.Drop, cut.Note = nil, "the cut would drop every target; none dropped"
	}
	cuts = append(cuts, cut)
	if err := results.WriteJSONAtomic(filepath.Join(results.GroupDir(r.Dir, g.Index), RungsFile), cuts); err != nil {
		return cuts, err
	}
	if len(cut.Drop) == 0 {
		r.logf("group %d: halving after round %d drops nothing (%s); the rounds go straight on with all %d targets",
			g.Index, k, cut.Note, len(play.Cells))
		return cuts, nil
	}
	var why []string
	for _, id := range cut.Drop {
		why = append(why, id+": "+cut.Why[id])
	}
	r.logf("group %d: halving after round %d drops %d of %d targets, their slices so far kept: %s",
		g.Index, k, len(cut.Drop), len(play.Cells), strings.Join(why, "; "))
	return cuts, nil
}
