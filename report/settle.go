package report

// The pick inside a set the data cannot separate. When the noise leaves
// several pairs in a profile's set, at a CPU limit (its ties) or across
// CPU limits (its calibrated set), which of them measured best is noise
// too: two runs of one grid would hand a person different values although
// each run's set holds the other's best. So the report picks inside the
// set by a rule that reads no figure: the fewest web threads, then the
// smallest pool, the cheapest settings the data cannot tell from the
// best. Two runs whose sets share that pair pick alike. The measured best
// stays a fact of its own, named wherever it differs from the pick. One
// function, settle, decides; everything that shows or exports a pick
// takes it from Pick.Chosen (a CPU limit) or Profile (across limits).

import (
	"fmt"
	"slices"

	"github.com/sweep-tool/sweep/sweep"
)

// SettleRule is how the report picks inside a set of more than one pair.
const SettleRule = "picked the fewest threads, then the smallest pool"

// settle returns the member of set with the fewest web threads, then the
// smallest pool, as size gives them (the first of equals); the zero T for
// an empty set.
func settle[T any](set []T, size func(T) (web, pool float64)) T {
	var pick T
	for i, x := range set {
		w, p := size(x)
		if i == 0 {
			pick = x
			continue
		}
		if pw, pp := size(pick); w < pw || (w == pw && p < pp) {
			pick = x
		}
	}
	return pick
}

// cellSize is a cell's web threads and pool.
func cellSize(c *Cell) (web, pool float64) { return float64(c.WebThreads), float64(c.DBPool) }

// pairSize is a multiplier pair's web and pool multipliers: at any CPU
// limit the lower web multiplier gives no more threads (the grid's
// rounding is monotone), and at the same web multiplier the lower pool
// multiplier no larger a pool.
func pairSize(p [2]float64) (web, pool float64) { return p[0], p[1] }

// SettleNote says how a pick inside a set of n pairs was made: "the data
// cannot separate n pairs; " and SettleRule; "" for a set of one.
func SettleNote(n int) string {
	if n < 2 {
		return ""
	}
	return fmt.Sprintf("the data cannot separate %d pairs; %s", n, SettleRule)
}

// Set is the measured best and the cells the data cannot separate from
// it; nil for no pick.
func (p Pick) Set() []*Cell {
	if p.Cell == nil {
		return nil
	}
	return append([]*Cell{p.Cell}, p.Ties...)
}

// Chosen is the cell to set: the measured best when the data separates
// it from every other cell, else the one settle picks in Set.
func (p Pick) Chosen() *Cell { return settle(p.Set(), cellSize) }

// Others are the cells of Set besides Chosen.
func (p Pick) Others() []*Cell {
	chosen := p.Chosen()
	return slices.DeleteFunc(p.Set(), func(c *Cell) bool { return c == chosen })
}

// Note is SettleNote of the set, with the measured best where it is not
// the chosen cell: "…; measured best: web 4 pool 10"; "" for a set of one.
func (p Pick) Note() string {
	s := SettleNote(len(p.Set()))
	if c := p.Cell; s != "" && c != p.Chosen() {
		s += fmt.Sprintf("; measured best: web %d pool %d", c.WebThreads, c.DBPool)
	}
	return s
}

// settleProfile makes the profile's pick (WebMult, DBMult, Score and
// the generator note) the pair settle picks in its set.
func settleProfile(per []*CPUReport, p *Profile) {
	if !p.Found {
		return
	}
	rule, _ := ruleOf(p.Key)
	pick := settle(p.Set(), pairSize)
	p.WebMult, p.DBMult = pick[0], pick[1]
	p.Score = meanObjective(per, pick, rule)
	p.Note = generatorNote(per, pick)
}

// Others are the pairs of the profile's set besides its pick.
func (p Profile) Others() [][2]float64 {
	pick := [2]float64{p.WebMult, p.DBMult}
	return slices.DeleteFunc(p.Set(), func(q [2]float64) bool { return q == pick })
}

// PickNote is SettleNote of the profile's set, with the measured best
// where it is not the pick: "…; measured best: web 1.5 × CPUs, pool 2 ×
// web"; "" for a set of one or no pick.
func (p Profile) PickNote() string {
	s := SettleNote(len(p.Set()))
	if s != "" && p.Best != [2]float64{p.WebMult, p.DBMult} {
		s += fmt.Sprintf("; measured best: web %s × CPUs, pool %s × web",
			sweep.FormatNumber(p.Best[0]), sweep.FormatNumber(p.Best[1]))
	}
	return s
}
