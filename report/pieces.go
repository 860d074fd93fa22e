package report

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// A change of the host inside a round. Pairing by round (paired.go)
// cancels what the host does to a whole round; a change that comes in
// the middle of one (a neighbour's build starting, a CPU hog switching
// on) puts the round's slices before it and after it on different
// levels, and reading them all against one median moves the ones on
// the minority's side by the whole change. So a group's slices are read
// in the order they ran, each against its cell's level, and where that
// series steps by more than its noise (changePoints) the round is cut
// there: each piece of a round is read against its own median, a piece
// of one slice against the piece of the neighbouring round it ran next
// to without a change between them. A host that moves slowly, or only
// between rounds, cuts no round, and the reading is the round's as
// before.

// changePoints returns where the mean of xs (a series in time order)
// steps: the index at which each segment after the first starts, in
// order. It is a moving-sum test (MOSUM): at each point the means of the
// window slices before it and the window after it (fewer at the
// series' ends, never under two) are compared in units of their
// standard error, σ the series' noise from its successive differences
// (robust to the steps themselves); where that exceeds threshold, the
// point of the largest difference in the run of such points is a step.
// Unlike cutting the series in two again and again, it finds steps that
// come and go every few points (a hog switching on and off), which a
// first cut in two cannot tell from noise. Steps closer together than
// window are seen as one. A series without noise (σ 0) has no steps it
// can tell from noise: none.
func changePoints(xs []float64, window int, threshold float64) []int {
	n := len(xs)
	if n < 4 {
		return nil
	}
	diffs := make([]float64, n-1)
	for i := range diffs {
		diffs[i] = math.Abs(xs[i+1] - xs[i])
	}
	sigma := 1.4826 * median(diffs) / math.Sqrt2
	if sigma == 0 || math.IsNaN(sigma) {
		return nil
	}
	prefix := make([]float64, n+1)
	for i, x := range xs {
		prefix[i+1] = prefix[i] + x
	}
	mean := func(a, b int) float64 { return (prefix[b] - prefix[a]) / float64(b-a) }
	z := make([]float64, n) // z[k]: the step between k-1 and k; 0 where not tested
	for k := 2; k <= n-2; k++ {
		wl, wr := min(window, k), min(window, n-k)
		z[k] = math.Abs(mean(k-wl, k)-mean(k, k+wr)) / (sigma * math.Sqrt(1/float64(wl)+1/float64(wr)))
	}
	var cuts []int
	for k := 2; k <= n-2; {
		if z[k] <= threshold {
			k++
			continue
		}
		best := k
		for k < n-1 && z[k] > threshold {
			if z[k] > z[best] {
				best = k
			}
			k++
		}
		if len(cuts) > 0 && best-cuts[len(cuts)-1] < window {
			if z[best] > z[cuts[len(cuts)-1]] {
				cuts[len(cuts)-1] = best
			}
			continue
		}
		cuts = append(cuts, best)
	}
	return cuts
}

// stepWindow and stepThreshold are changePoints' for a group's slices:
// three slices a side (a hog that switches every 40 s switches every six
// 5 s slices or so), and a difference of four standard errors, which a
// series of noise alone reaches seldom (TestChangePoints: a cut where
// there was no change costs only a smaller median).
const (
	stepWindow    = 3
	stepThreshold = 4.0
)

// timed is one ok slice of a group in the order it ran.
type timed struct {
	at           sliceAt
	round, place int
}

// roundPieces cuts the rounds of one group's ok slices (order: in the
// order they ran, rounds of two or more) where xs, the series of their
// log RPS each less its cell's level (diffLevels), steps (changePoints).
// It returns the pieces, each a round's slices on one side of a step,
// and how many rounds were cut. A piece of one slice joins the piece it
// ran next to in the neighbouring round when no step lies between them,
// else the rest of its round (the cut is undone for it).
func roundPieces(order []timed, xs []float64) (pieces [][]sliceAt, cut int) {
	seg := make([]int, len(order)) // the segment each slice ran in
	for _, c := range changePoints(xs, stepWindow, stepThreshold) {
		for i := c; i < len(seg); i++ {
			seg[i]++
		}
	}
	type key struct{ round, seg int }
	index := map[key]int{}
	var keys []key
	for i, t := range order {
		k := key{t.round, seg[i]}
		if _, ok := index[k]; !ok {
			index[k] = len(pieces)
			pieces = append(pieces, nil)
			keys = append(keys, k)
		}
		pieces[index[k]] = append(pieces[index[k]], t.at)
	}
	// a piece of one: the neighbouring round's piece of its segment
	// (the slice ran at an end of its round, next to it), else the rest
	// of its own round
	parent := make([]int, len(pieces))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		if parent[i] != i {
			parent[i] = find(parent[i])
		}
		return parent[i]
	}
	for i, k := range keys {
		if len(pieces[i]) != 1 {
			continue
		}
		for _, n := range []key{{k.round - 1, k.seg}, {k.round + 1, k.seg}, {k.round, k.seg + 1}, {k.round, k.seg - 1}} {
			if j, ok := index[n]; ok && (len(pieces[j]) > 1 || n.round == k.round) {
				parent[find(i)] = find(j)
				break
			}
		}
	}
	joined := map[int][]sliceAt{}
	var roots []int
	inRound := map[int]map[int]bool{} // the pieces each round's slices ended in
	for i, k := range keys {
		r := find(i)
		if _, ok := joined[r]; !ok {
			roots = append(roots, r)
		}
		joined[r] = append(joined[r], pieces[i]...)
		if inRound[k.round] == nil {
			inRound[k.round] = map[int]bool{}
		}
		inRound[k.round][r] = true
	}
	out := make([][]sliceAt, len(roots))
	for i, r := range roots {
		out[i] = joined[r]
	}
	for _, in := range inRound {
		if len(in) > 1 {
			cut++
		}
	}
	return out, cut
}

// readPieces cuts a group's rounds where the host stepped inside them
// and returns the pieces, what each piece's slices are read against (RPS
// and p99) and how many rounds were cut. order is the group's ok slices
// in the order they ran (rounds of two or more), val a slice's RPS and
// p99, medians those of a whole round's slices (paired.go: the targets
// in play in the last round).
//
// The steps are looked for in the series of log RPS less each cell's
// level (diffLevels: from the ratios of slices that ran one after the
// other, which the host's level cancels from but at a step). A whole
// round is read against its medians, as when nothing is cut. A piece of
// a cut round holds some of the round's cells, not all, and its median
// would depend on which: it is read against the median of its slices
// each less its cell's level, the levels put on the scale of the whole
// rounds' medians.
func readPieces(order []timed, val func(sliceAt) [2]float64, medians func([]sliceAt) [2]float64) (pieces [][]sliceAt, ms [][2]float64, cut int) {
	count := map[int]int{} // slices per round
	for _, t := range order {
		count[t.round]++
	}
	logOf := func(s sliceAt, m int) float64 { return math.Log(max(val(s)[m], math.SmallestNonzeroFloat64)) }
	var levels [2]map[int]float64
	for m := range 2 {
		levels[m] = diffLevels(order, func(s sliceAt) float64 { return logOf(s, m) })
	}
	xs := make([]float64, len(order))
	for i, t := range order {
		xs[i] = logOf(t.at, 0) - levels[0][t.at.cell]
	}
	pieces, cut = roundPieces(order, xs)
	roundOf := map[sliceAt]int{}
	for _, t := range order {
		roundOf[t.at] = t.round
	}
	whole := func(piece []sliceAt) bool {
		k := roundOf[piece[0]]
		return len(piece) == count[k] && !slices.ContainsFunc(piece, func(s sliceAt) bool { return roundOf[s] != k })
	}
	// less is the median of piece's slices, each less its cell's level
	less := func(piece []sliceAt, m int) float64 {
		xs := make([]float64, len(piece))
		for j, s := range piece {
			xs[j] = logOf(s, m) - levels[m][s.cell]
		}
		return median(xs)
	}
	ms = make([][2]float64, len(pieces))
	var offset [2][]float64 // whole rounds: log median less the median less the levels
	for i, piece := range pieces {
		if whole(piece) {
			ms[i] = medians(piece)
			for m := range 2 {
				offset[m] = append(offset[m], math.Log(max(ms[i][m], math.SmallestNonzeroFloat64))-less(piece, m))
			}
		}
	}
	for i, piece := range pieces {
		if whole(piece) {
			continue
		}
		for m := range 2 {
			off := 0.0
			if len(offset[m]) > 0 {
				off = stat.Mean(offset[m], nil)
			}
			ms[i][m] = math.Exp(less(piece, m) + off)
		}
	}
	return pieces, ms, cut
}

// diffLevels is each cell's level in a group's series of log figures
// (order, logOf), up to a constant: the levels whose differences best
// explain the differences between slices that ran one after the other,
// by least absolute deviations (iteratively reweighted least squares).
// Two neighbours in time share the host's level unless it stepped
// between them, and the few pairs across a step are what least absolute
// deviations passes over; a host that steps every six slices leaves
// five of six pairs clean. The levels sum to zero.
func diffLevels(order []timed, logOf func(sliceAt) float64) map[int]float64 {
	index := map[int]int{}
	var cells []int
	for _, t := range order {
		if _, ok := index[t.at.cell]; !ok {
			index[t.at.cell] = len(cells)
			cells = append(cells, t.at.cell)
		}
	}
	n := len(cells)
	type pair struct {
		from, to int
		d        float64
	}
	var pairs []pair
	for i := 1; i < len(order); i++ {
		a, b := index[order[i-1].at.cell], index[order[i].at.cell]
		if a != b {
			pairs = append(pairs, pair{a, b, logOf(order[i].at) - logOf(order[i-1].at)})
		}
	}
	level := make([]float64, n)
	if n < 2 || len(pairs) == 0 {
		out := map[int]float64{}
		for _, c := range cells {
			out[c] = 0
		}
		return out
	}
	w := make([]float64, len(pairs))
	for i := range w {
		w[i] = 1
	}
	for range 30 {
		// normal equations of the weighted fit, with the levels' sum
		// held at zero and a little ridge for cells never side by side
		ata := mat.NewSymDense(n, nil)
		atd := mat.NewVecDense(n, nil)
		for i, p := range pairs {
			ata.SetSym(p.to, p.to, ata.At(p.to, p.to)+w[i])
			ata.SetSym(p.from, p.from, ata.At(p.from, p.from)+w[i])
			ata.SetSym(p.to, p.from, ata.At(p.to, p.from)-w[i])
			atd.SetVec(p.to, atd.AtVec(p.to)+w[i]*p.d)
			atd.SetVec(p.from, atd.AtVec(p.from)-w[i]*p.d)
		}
		for j := range n {
			for k := j; k < n; k++ {
				ata.SetSym(j, k, ata.At(j, k)+1) // (Σ level)² as one more equation
			}
			ata.SetSym(j, j, ata.At(j, j)+1e-9)
		}
		var chol mat.Cholesky
		if !chol.Factorize(ata) {
			break
		}
		x := mat.NewVecDense(n, nil)
		if err := chol.SolveVecTo(x, atd); err != nil {
			break
		}
		for j := range n {
			level[j] = x.AtVec(j)
		}
		for i, p := range pairs {
			w[i] = 1 / max(math.Abs(p.d-(level[p.to]-level[p.from])), 1e-4)
		}
	}
	out := make(map[int]float64, n)
	for j, c := range cells {
		out[c] = level[j]
	}
	return out
}
