package report

import (
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Ranges are the spans the balanced score of one CPU limit is normalised
// by: RPS and P99 from their lowest to their highest value.
type Ranges struct {
	RPSLo, RPSHi float64
	P99Lo, P99Hi float64
}

// Balanced is the balanced score of a cell with these figures:
// (RPS − RPSLo)/(RPSHi − RPSLo) − (P99 − P99Lo)/(P99Hi − P99Lo), a span of
// zero counting as no difference. This is the one definition; a screening
// strategy ranks through the report and so through it too.
func (r Ranges) Balanced(rps, p99 float64) float64 {
	return unit(rps, r.RPSLo, r.RPSHi) - unit(p99, r.P99Lo, r.P99Hi)
}

// rangesOf returns the spans of cells' mean RPS and P99.
func rangesOf(cells []*Cell) Ranges {
	r := emptyRanges()
	for _, c := range cells {
		r.widen(c.RPS.Mean, c.RPS.Mean, c.P99.Mean, c.P99.Mean)
	}
	return r
}

// emptyRanges are spans that any figure widens.
func emptyRanges() Ranges {
	return Ranges{RPSLo: math.Inf(1), RPSHi: math.Inf(-1), P99Lo: math.Inf(1), P99Hi: math.Inf(-1)}
}

// widen extends the spans to reach each figure: rpsLo and p99Lo from
// below, rpsHi and p99Hi from above.
func (r *Ranges) widen(rpsLo, rpsHi, p99Lo, p99Hi float64) {
	r.RPSLo, r.RPSHi = min(r.RPSLo, rpsLo), max(r.RPSHi, rpsHi)
	r.P99Lo, r.P99Hi = min(r.P99Lo, p99Lo), max(r.P99Hi, p99Hi)
}

// NormRound is the screening round whose cells a halving run's balanced
// score is normalised over: the first, the one round that measures every
// cell.
const NormRound = 1

// normalisation returns, per CPU limit, the spans a run's balanced score
// is normalised by when they are not those of the cells compared: for a
// halving run, the spans over every cell its first round measured
// eligibly (ok, errors within the bound, as the report judges), each at
// the best fidelity the run has for it (screenSpans), and the first
// round's noise they were pulled in by. Nil for a grid, whose report
// normalises by the cells it compares.
//
// Why: dropping cells must not change a score. Normalised by the cells
// compared, the finalists' spans lose each limit's lowest RPS and
// highest P99 (the cells screened out first), which reweighs RPS against
// P99 and reorders the finalists (TestBalancedScoreOfASubset). Over the
// first round's cells the set is the same for every later round and for
// the report, whatever was dropped; since a profile's ranking only
// depends on each limit's two spans (the lower ends add the same
// constant to every cell's score), a level that a short round measures
// higher or lower than a full one does not move it either.
//
// cells are run.Cells as Build summarised them, in the same order.
func normalisation(run *results.Run, cells []*Cell, opts Options) (map[float64]Ranges, relNoise) {
	if run.Strategy != StrategyHalving || run.Schedule == sweep.ScheduleInterleaved {
		// on interleaved rounds every cell stays in the analysis with
		// the rounds it ran: the spans lose no cell
		return nil, relNoise{}
	}
	var ms []spanCell
	for i, rc := range run.Cells {
		if rc.Baseline {
			continue
		}
		for _, s := range rc.Screens {
			if s.Round != NormRound {
				continue
			}
			c := summarise(results.RunCell{CellInfo: rc.CellInfo, Reps: []results.Rep{{Record: s.Record}}}, run.Service, poolShape(run), opts)
			if c.Ineligible != "" {
				continue
			}
			m := spanCell{screen: c}
			if full := cells[i]; full.Status == results.StatusOK && full.Ineligible == "" {
				m.full = full
			}
			ms = append(ms, m)
		}
	}
	noise := screenNoise(ms)
	return screenSpans(ms, noise), noise
}

// spanCell is a cell of a halving run's first round: its screen and, when
// a later round measured it eligibly, that longer measurement.
type spanCell struct {
	screen, full *Cell
}

// ScreenZ is the normal quantile a halving run judges screens by, one
// sided 97.5 %: two screens of relative noise σ that differ by less than
// ScreenBand(σ) cannot be told apart. The round's ties (halving.Band) and
// how far a screen may widen the balanced spans (screenSpans) both use it.
//
// Why 97.5 % and not 95 %: the goal is that halving picks what the grid
// picks in 95 % of runs, and a band that keeps a pair of the best's true
// value with 95 % per comparison delivers less than that over a round,
// since the best it is compared with is the largest of several noisy
// figures and the pair must survive at every CPU limit. Replaying the
// study (200 seeds each) at 24 % noise, 95 % agreed in 94.5 % (balanced)
// and 95 % (throughput-first), 97.5 % in 98.5 % each. It costs more finals at low
// noise: 15.1 % of the grid's time at 5 % noise instead of 13.6 %.
const ScreenZ = 1.959964

// ScreenBand is ScreenZ·√2·σ: how far apart two figures of relative noise
// σ each must lie before a screening round takes them as different.
func ScreenBand(sigma float64) float64 { return ScreenZ * math.Sqrt2 * sigma }

// screenSpans returns each CPU limit's spans over the first round's
// cells, each at the best fidelity measured: a cell measured again at
// length counts with those figures; a cell only screened counts with its
// screen's figures pulled towards the middle by the first round's noise
// σ (noise, from screenNoise) as far as a round cannot tell figures
// apart: its RPS widens the span downwards no lower than
// RPS·e^ScreenBand(σ), upwards no higher than RPS·e^−ScreenBand(σ), and
// P99 alike. Without that, a screen's noise widens the spans it sets: at
// 21 % noise per screen, the study's 20 cells of a limit span about 78 %
// of the mean RPS where the truth is 15 %, which all but zeroes the
// weight of RPS and turns balanced into latency-first (sweep replay on
// the study's table agreed in 0 of 200 replays). Pulled in by less, at
// the near end of a screen's one-sided 95 % interval (1.645σ), balanced
// agreed in 98.5 % at 21 % noise but fell to 86.5 % at 36 %, where most
// cells reach the finals and a screen
// can only blur what their figures say; pulled in by the band, balanced
// agrees as often as the selection keeps the winner, at every noise
// replayed from 5 to 36 %. A span changes only as the run measures cells
// better, never because one was dropped.
func screenSpans(ms []spanCell, noise relNoise) map[float64]Ranges {
	out := map[float64]Ranges{}
	pullRPS, pullP99 := math.Exp(ScreenBand(noise.rps)), math.Exp(ScreenBand(noise.p99))
	for _, m := range ms {
		cpu := m.screen.CPUs
		r, ok := out[cpu]
		if !ok {
			r = emptyRanges()
		}
		if m.full != nil {
			r.widen(m.full.RPS.Mean, m.full.RPS.Mean, m.full.P99.Mean, m.full.P99.Mean)
		} else {
			rps, p99 := m.screen.RPS.Mean, m.screen.P99.Mean
			r.widen(rps*pullRPS, rps/pullRPS, p99*pullP99, p99/pullP99)
		}
		out[cpu] = r
	}
	return out
}

// relNoise is a relative noise (the standard deviation of a figure's
// logarithm) of RPS and of P99.
type relNoise struct{ rps, p99 float64 }

// screenNoise is the first round's relative noise as the run shows it:
// the spread of each cell's screen about its longer measurement (the log
// of their ratio), each CPU limit's mean ratio taken out (a short round
// may measure a whole limit higher or lower, which moves no ranking),
// pooled over the limits. It holds the drift between cells measured
// minutes apart and a cold warm-up, which a screen's own per-second
// series misses. Zero with fewer than three degrees of freedom (cells
// measured both ways, less one per limit): a round with no later
// measurement to compare (the first, choosing its survivors) counts its
// figures as they are.
func screenNoise(ms []spanCell) relNoise {
	rps, p99 := map[float64][]float64{}, map[float64][]float64{}
	for _, m := range ms {
		if cpu := m.screen.CPUs; m.full != nil && positive(m.screen) && positive(m.full) {
			rps[cpu] = append(rps[cpu], math.Log(m.screen.RPS.Mean/m.full.RPS.Mean))
			p99[cpu] = append(p99[cpu], math.Log(m.screen.P99.Mean/m.full.P99.Mean))
		}
	}
	sdRPS, dof := pooledSD(rps)
	sdP99, _ := pooledSD(p99)
	if dof < minNoiseDOF {
		return relNoise{}
	}
	return relNoise{rps: sdRPS, p99: sdP99}
}

// pooledSD is the pooled within-group standard deviation of groups (each
// group's own mean taken out) and its degrees of freedom, the values less
// one per group.
func pooledSD(groups map[float64][]float64) (sd float64, dof int) {
	var ss float64
	for _, xs := range groups {
		if len(xs) > 1 {
			ss += stat.Variance(xs, nil) * float64(len(xs)-1)
			dof += len(xs) - 1
		}
	}
	if dof == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(dof)), dof
}

// minNoiseDOF is the fewest degrees of freedom screenNoise estimates from.
const minNoiseDOF = 3

// positive reports whether a cell's RPS and P99 both have a logarithm.
func positive(c *Cell) bool { return c.RPS.Mean > 0 && c.P99.Mean > 0 }

// scoreBalanced sets the limit's spans and Score on every cell: normalised
// RPS minus normalised P99 over the spans stored (a halving run's first
// round) or, without them, over the spans of these cells (see the package
// doc).
func (cr *CPUReport) scoreBalanced(cells []*Cell, stored *Ranges) {
	cr.norm = rangesOf(cells)
	if stored != nil {
		cr.norm = *stored
	}
	for _, c := range cells {
		c.Score = cr.norm.Balanced(c.RPS.Mean, c.P99.Mean)
	}
}

func unit(x, lo, hi float64) float64 {
	if hi <= lo {
		return 0
	}
	return (x - lo) / (hi - lo)
}
