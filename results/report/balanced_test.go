package report

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// subsetOf returns a copy of the run with only the cells whose first
// multiplier pair passes keep.
func subsetOf(run *results.Run, keep func(web, db float64) bool) *results.Run {
	out := *run
	out.Cells = nil
	for _, c := range run.Cells {
		if keep(c.WebMult, c.DBMult) {
			out.Cells = append(out.Cells, c)
		}
	}
	return &out
}

// TestBalancedRangesFixTheSubsetTrap: normalised by the cells compared, a
// screened subset's balanced scores differ from the grid's; normalised by
// the grid's ranges they are the grid's, and so is their order.
func TestBalancedRangesFixTheSubsetTrap(t *testing.T) {
	t.Parallel()
	run, err := results.LoadRun(filepath.Join("testdata", "gop"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := Build(run, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	finalists := subsetOf(run, func(web, _ float64) bool { return web == 1.5 || web == 2 })
	free, err := Build(finalists, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.BalancedRanges = full.BalancedRanges()
	fixed, err := Build(finalists, opts)
	if err != nil {
		t.Fatal(err)
	}
	score := func(rep *Report) map[string]float64 {
		m := map[string]float64{}
		for _, c := range rep.Cells {
			m[c.ID] = c.Score
		}
		return m
	}
	want, got, drifted := score(full), score(fixed), 0
	for id, s := range score(free) {
		if got[id] != want[id] {
			t.Errorf("%s: score with the grid's ranges %.4f, the grid's %.4f", id, got[id], want[id])
		}
		if s != want[id] {
			drifted++
		}
	}
	if drifted == 0 {
		t.Error("the subset normalised by itself kept every score: the test no longer shows the trap")
	}
	order := func(rs []PairScore) [][2]float64 {
		var out [][2]float64
		for _, r := range rs {
			if r.Pair[0] == 1.5 || r.Pair[0] == 2 {
				out = append(out, r.Pair)
			}
		}
		return out
	}
	if a, b := order(full.Ranking("balanced")), order(fixed.Ranking("balanced")); !slices.Equal(a, b) {
		t.Errorf("balanced order of the finalists: grid %v, subset with the grid's ranges %v", a, b)
	}
}

func TestRankingAgreesWithTheRecommendation(t *testing.T) {
	t.Parallel()
	rep := buildFixture(t, "gop")
	if got := len(ProfileKeys()); got != len(rep.Profiles) {
		t.Fatalf("%d profile keys, %d profiles", got, len(rep.Profiles))
	}
	for i, key := range ProfileKeys() {
		p := rep.Profiles[i]
		ranked := rep.Ranking(key)
		if len(ranked) != 20 || ranked[0].Pair != [2]float64{p.WebMult, p.DBMult} || ranked[0].Score != p.Score {
			t.Errorf("%s: ranking starts %v of %d, recommendation %gx%g (%.4f)", key, ranked[0], len(ranked), p.WebMult, p.DBMult, p.Score)
		}
		for j := 1; j < len(ranked); j++ {
			if ranked[j].Score > ranked[j-1].Score {
				t.Errorf("%s: ranking not best first at %d", key, j)
			}
		}
		var equiv [][2]float64
		for _, r := range ranked {
			if r.Pair != ranked[0].Pair && rep.Equivalent(key, r.Pair, ranked[0].Pair) {
				equiv = append(equiv, r.Pair)
			}
		}
		slices.SortFunc(equiv, func(a, b [2]float64) int { return cmpFloat(a[0]*100+a[1], b[0]*100+b[1]) })
		if !slices.Equal(equiv, p.Equivalent) {
			t.Errorf("%s: Equivalent gives %v, the profile lists %v", key, equiv, p.Equivalent)
		}
	}
	if rep.Ranking("fastest") != nil || rep.Equivalent("fastest", [2]float64{1, 2}, [2]float64{1, 2}) {
		t.Error("an unknown profile key ranked or matched something")
	}
	if rep.Equivalent("latency", [2]float64{1, 2}, [2]float64{9, 9}) {
		t.Error("a pair that was never measured is equivalent to one that was")
	}
}

func TestBackwardRangesAreBadInput(t *testing.T) {
	t.Parallel()
	opts := DefaultOptions()
	opts.BalancedRanges = []Ranges{{CPUs: 2, RPSLo: 10, RPSHi: 5, P99Lo: 1, P99Hi: 2}}
	if _, err := Build(&results.Run{}, opts); !errors.Is(err, ErrBadInput) {
		t.Errorf("backward ranges: %v, want ErrBadInput", err)
	}
}
