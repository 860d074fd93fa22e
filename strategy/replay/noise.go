package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/strategy/halving"
	"github.com/sweep-tool/sweep/sweep"
	"github.com/sweep-tool/sweep/sweep/steady"
)

// Noise is the relative noise (coefficient of variation) one round's
// figures are perturbed with, drawn afresh for every cell in every
// round, at the round's length: a screening round's fixed phase, the
// finals' longest (each finalist is perturbed at the length its own
// final lasts).
type Noise struct {
	Round   int     `json:"round"`
	LengthS float64 `json:"length_s"`
	RPS     float64 `json:"rps_cv"`
	P99     float64 `json:"p99_cv"`
	// Measured says the figures come from the run (its per-second
	// samples and repetitions); false when given (--noise) or none.
	Measured bool   `json:"measured"`
	Source   string `json:"source"`
}

// model is the noise of a figure as a function of the length it was
// measured over: given (one CV, for every screen or stated at a length),
// measured from the run, or none.
type model struct {
	// given is the CV given; givenAtS the length it was given at (0: for
	// every screening round whatever its length, the finals unperturbed,
	// as --noise without a length has always meant).
	given, givenAtS float64
	measured        bool
	// rep is the spread between a cell's repetitions (RPS, p99) at the
	// run's length, from nRep cells.
	rep  [2]float64
	nRep int
	// win is the spread of windows within a measured phase per window
	// length in seconds (RPS, p99), from cells[L] cells; fit extends it
	// beyond the longest length measured (fitted is false without one).
	win    map[int][2]float64
	cells  map[int]int
	fit    [2]confidence.LengthNoise
	fitted bool
}

// ParseNoise reads --noise: a share ("5%", "0.05"), optionally with the
// window length it was measured at after an @ ("5%@30s"). The share is
// read by sweep.ParseShare; errors are bad input of {noise_cv}.
func ParseNoise(text string) (cv float64, at time.Duration, err error) {
	share, length, stated := strings.Cut(text, "@")
	cv, err = sweep.ParseShare("noise_cv", share)
	if err != nil || !stated {
		return cv, 0, err
	}
	at, err = time.ParseDuration(strings.TrimSpace(length))
	if err != nil || at < time.Second {
		return 0, 0, sweep.BadInput("noise_cv", "%q: the length after @ must be a duration of 1s or more, as in 5%%@30s", text)
	}
	return cv, at, nil
}

// givenModel is the noise given: cv at length at (0: none stated).
func givenModel(cv float64, at time.Duration) *model {
	return &model{given: cv, givenAtS: at.Seconds()}
}

// measuredModel estimates the run's noise as a function of length: the
// spread between repetitions of a cell (drift between measurements, at
// full length) combined, as the root of the sum of squares, with the
// spread of the means of windows of each length within one measured
// phase relative to the phase's mean (windows), each pooled over
// cells weighted by their RPS (pooled). Lengths with fewer than three
// windows in a cell are not measured in it; beyond the longest length
// measured in any cell the windows' noise is the curve fitted to every
// length (confidence.FitLengthNoise: what averages out, and a floor that
// does not). ok is false when the run has neither.
func measuredModel(cells []*cell) (*model, bool) {
	m := &model{measured: true, win: map[int][2]float64{}, cells: map[int]int{}}
	var n int
	m.rep[0], m.rep[1], n = pooled(cells, func(c *cell) ([]float64, []float64) { return c.repRPS, c.repP99 })
	m.nRep = n
	longest := 0
	for _, c := range cells {
		longest = max(longest, len(c.series)/3)
	}
	var lengths, rpsCV, p99CV, weights []float64
	for size := 1; size <= longest; size++ {
		a, b, n := pooled(cells, func(c *cell) ([]float64, []float64) {
			return windows(c.series, size)
		})
		if n == 0 {
			continue
		}
		m.win[size], m.cells[size] = [2]float64{a, b}, n
		windows := 0
		for _, c := range cells {
			if len(c.series) >= 3*size {
				windows += len(c.series) / size
			}
		}
		lengths, rpsCV, p99CV = append(lengths, float64(size)), append(rpsCV, a), append(p99CV, b)
		weights = append(weights, float64(windows))
	}
	fr, okR := confidence.FitLengthNoise(lengths, rpsCV, weights)
	fp, okP := confidence.FitLengthNoise(lengths, p99CV, weights)
	m.fit, m.fitted = [2]confidence.LengthNoise{fr, fp}, okR && okP
	return m, m.nRep > 0 || len(m.win) > 0
}

// windows are the RPS and p99 of a phase's consecutive windows of size
// seconds, as steady.Batches cuts them; none when the phase holds fewer
// than three (fewer say little).
func windows(series []results.Interval, size int) (rps, p99 []float64) {
	if size < 1 || len(series) < 3*size {
		return nil, nil
	}
	return steady.Batches(series, size)
}

// at is the noise (RPS, p99) of a figure measured over s seconds, and
// in words where it comes from.
func (m *model) at(s float64) (rps, p99 float64, source string) {
	switch {
	case !m.measured && m.given == 0:
		return 0, 0, "none: the grid's own figures"
	case !m.measured && m.givenAtS == 0:
		return m.given, m.given, fmt.Sprintf("assumed: %s given for every screening round whatever its length; "+
			"no length stated, as --noise %s@30s would", pct(m.given), sweep.FormatShare(m.given))
	case !m.measured:
		cv := m.given * math.Sqrt(m.givenAtS/s)
		return cv, cv, fmt.Sprintf("assumed: %s given at %s, scaled as white noise by √(%s/%s)",
			pct(m.given), secs(m.givenAtS), secs(m.givenAtS), secs(s))
	}
	var parts []string
	var win [2]float64
	size := int(math.Round(s))
	if w, ok := m.win[size]; ok {
		win = w
		parts = append(parts, fmt.Sprintf("%d cells' %s windows", m.cells[size], secs(s)))
	} else if m.fitted {
		win = [2]float64{m.fit[0].At(s), m.fit[1].At(s)}
		parts = append(parts, fmt.Sprintf("extrapolated from windows of 1–%s (RPS %s·√(1 s/L) + floor %s)",
			secs(float64(m.longest())), pct(m.fit[0].White), pct(m.fit[0].Floor)))
	}
	if m.nRep > 0 {
		parts = append(parts, fmt.Sprintf("%d cells' repetitions", m.nRep))
	}
	if len(parts) == 0 {
		parts = append(parts, "no window of this length and no repetition")
	}
	return math.Hypot(m.rep[0], win[0]), math.Hypot(m.rep[1], win[1]), "measured: " + strings.Join(parts, ", ")
}

// finals is the noise of a finalist measured for s seconds: none when the
// noise was given without a length (a screen's noise, as before).
func (m *model) finals(s float64) (rps, p99 float64) {
	if !m.measured && m.givenAtS == 0 {
		return 0, 0
	}
	rps, p99, _ = m.at(s)
	return rps, p99
}

// longest is the longest window length measured.
func (m *model) longest() int {
	n := 0
	for size := range m.win {
		n = max(n, size)
	}
	return n
}

// rounds is the noise of each of plan's rounds at its length: a screening
// round's measured phase, the finals' longest.
func (m *model) rounds(plan halving.Plan) []Noise {
	out := make([]Noise, len(plan.Rounds))
	for i, r := range plan.Rounds {
		s := r.Duration.Seconds()
		rps, p99, source := m.at(s)
		if i == len(plan.Rounds)-1 {
			rps, p99 = m.finals(s)
			if rps == 0 && p99 == 0 && m.given > 0 {
				source = "none: the finalists at the grid's own figures, since a --noise without a length is a screen's"
			}
		}
		out[i] = Noise{Round: i + 1, LengthS: s, RPS: rps, P99: p99, Measured: m.measured, Source: source}
	}
	return out
}

// pooled returns the cells' coefficients of variation of two figures
// pooled as confidence.PooledNoise does (weighted by each cell's RPS, as
// halving.Band weighs a round's screens), and how many cells had one of
// the first figure.
func pooled(cells []*cell, figures func(*cell) ([]float64, []float64)) (a, b float64, n int) {
	var as, bs, aw, bw []float64
	for _, c := range cells {
		xs, ys := figures(c)
		if cv, ok := confidence.CV(xs); ok {
			as, aw = append(as, cv), append(aw, c.rps)
		}
		if cv, ok := confidence.CV(ys); ok {
			bs, bw = append(bs, cv), append(bw, c.rps)
		}
	}
	a, _ = confidence.PooledNoise(as, aw)
	b, _ = confidence.PooledNoise(bs, bw)
	return a, b, len(as)
}

// perturb returns x × (1 + cv·z), z standard normal, never below 1 % of x
// (a figure cannot turn negative however large the noise).
func perturb(r *rand.Rand, x, cv float64) float64 {
	if cv == 0 {
		return x
	}
	return x * max(0.01, 1+cv*r.NormFloat64())
}

func pct(v float64) string { return fmt.Sprintf("%.1f %%", 100*v) }

func secs(s float64) string { return sweep.FormatNumber(s) + " s" }
