package report

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// ReRuns is how many re-runs Calibrate simulates.
const ReRuns = 1000

// CalibratedShare is the share of simulated re-runs a profile's set is
// made to cover: after the pick and the pairs the data cannot separate
// from it, the pairs the re-runs picked most often join it (Likely)
// until their picks reach this share.
const CalibratedShare = 0.95

// Calibration is how often a re-run on the same host would pick one of
// a profile's pairs: its measured best, one the report calls equivalent
// to that, or one Calibrate added.
type Calibration struct {
	Profile string `json:"profile"`
	// Pairs is the size of the set (Profile.Set: the measured best, its
	// equivalents and the likely pairs); Share the simulated re-runs (of
	// ReRuns) whose pick lay in it.
	Pairs int     `json:"pairs"`
	Share float64 `json:"share"`
	// Equivalent is the share of the measured best and its equivalents
	// alone, before Calibrate added any pair.
	Equivalent float64 `json:"equivalent_share"`
}

// Calibrate makes every profile's set cover about CalibratedShare of
// the re-runs a host with this run's noise would make, and says how
// often a re-run would pick in it. Only measured noise calibrates: with
// the noise not measured (Noise.NotMeasured) it adds nothing and
// returns none, so no share rests on an assumed band. ReRuns re-runs
// are drawn, each cell's RPS and p99 its mean × (1 + s·z), z standard
// normal and s = √2 × cv / √n with n the cell's ok repetitions and cv
// the run's measured noise, drawn apart per cell and metric; each re-run is analysed as the report
// analyses the run (analyseCPU, ranking) and its pick counted. The
// pick and its equivalents (the pairs within the noise band of it at
// every CPU limit) form the set; while their picks fall short of
// CalibratedShare, the pair the re-runs picked most often joins it
// (Profile.Likely; ties in pair order), and the profile's pick is then
// settled in the grown set (settleProfile) and what rests on it derived
// again (Report.settled). A re-run's pick is its measured best: the set
// covers where the best falls, and the pick inside it is the rule's. The √2 is the spread of a
// re-run's figure about this run's figure of the same cell: both carry
// the noise. The draws are seeded, so the report reads the same twice.
// It assumes the cells' errors independent: a drift that moves every
// cell alike is what Drift reports instead. Build calls it.
func (r *Report) Calibrate() []Calibration {
	if r.calibration != nil || len(r.PerCPU) == 0 {
		return r.calibration
	}
	r.calibration = []Calibration{}
	if !r.Noise.Measured {
		return r.calibration
	}
	cvR, cvP := r.Noise.RPSCV, r.Noise.P99CV
	picks := make([]map[[2]float64]int, len(profileRules))
	for i := range picks {
		picks[i] = map[[2]float64]int{}
	}
	rng := rand.New(rand.NewPCG(26, 95))
	for range ReRuns {
		per := r.reRun(rng, cvR, cvP)
		if len(per) != len(r.PerCPU) {
			continue // every cell of a CPU limit drawn ineligible: no pick
		}
		for i, rule := range profileRules {
			if ranked := ranking(per, rule); len(ranked) > 0 {
				picks[i][ranked[0].Pair]++
			}
		}
	}
	for i := range r.Profiles {
		p := &r.Profiles[i]
		if !p.Found {
			continue
		}
		hits := 0
		for pair, n := range picks[i] {
			if p.inSet(pair) {
				hits += n
			}
		}
		c := Calibration{Profile: p.Key, Equivalent: float64(hits) / ReRuns}
		for _, pair := range mostPicked(picks[i]) {
			if float64(hits) >= CalibratedShare*ReRuns {
				break
			}
			if !p.inSet(pair) {
				p.Likely = append(p.Likely, pair)
				hits += picks[i][pair]
			}
		}
		c.Pairs, c.Share = len(p.Set()), float64(hits)/ReRuns
		r.calibration = append(r.calibration, c)
		if len(p.Likely) > 0 {
			settleProfile(r.PerCPU, p)
		}
	}
	r.settled()
	return r.calibration
}

// mostPicked lists the picked pairs, most picks first, equal counts in
// pair order.
func mostPicked(picks map[[2]float64]int) [][2]float64 {
	pairs := slices.Collect(maps.Keys(picks))
	slices.SortFunc(pairs, func(a, b [2]float64) int {
		if picks[a] != picks[b] {
			return picks[b] - picks[a]
		}
		if a[0] != b[0] {
			return cmpFloat(a[0], b[0])
		}
		return cmpFloat(a[1], b[1])
	})
	return pairs
}

// reRun draws one re-run of the report's cells and analyses it per CPU
// limit with the run's normalisation.
func (r *Report) reRun(rng *rand.Rand, cvR, cvP float64) []*CPUReport {
	var per []*CPUReport
	for _, cr := range r.PerCPU {
		cells := make([]*Cell, 0, len(cr.Cells)+1)
		for _, c := range append(slices.Clip(cr.Cells), cr.Baseline) {
			if c == nil {
				continue
			}
			d := *c
			n := math.Sqrt(float64(max(1, c.RPS.N)))
			d.RPS.Mean = perturb(rng, c.RPS.Mean, math.Sqrt2*cvR/n)
			d.P99.Mean = perturb(rng, c.P99.Mean, math.Sqrt2*cvP/n)
			cells = append(cells, &d)
		}
		var stored *Ranges
		if s, ok := r.norm[cr.CPUs]; ok {
			stored = &s
		}
		if a := analyseCPU(cr.CPUs, cells, stored); a != nil {
			per = append(per, a)
		}
	}
	return per
}

// perturb returns x × (1 + s·z), never below 1 % of x.
func perturb(rng *rand.Rand, x, s float64) float64 {
	return x * max(0.01, 1+s*rng.NormFloat64())
}

// Sentence says what the profile's set means.
func (c Calibration) Sentence() string {
	set := fmt.Sprintf("one of these %d pairs", c.Pairs)
	if c.Pairs == 1 {
		set = "this pair"
	}
	alone := ""
	if c.Share != c.Equivalent {
		alone = fmt.Sprintf("; the measured best and the pairs within the noise band of it alone: %.0f %%", 100*c.Equivalent)
	}
	return fmt.Sprintf("a re-run on this host would pick %s in about %.0f %% of runs, from the measured noise (%d simulated re-runs%s)",
		set, 100*c.Share, ReRuns, alone)
}

// calibrationOf is the profile key's calibration, false when none.
func (r *Report) calibrationOf(key string) (Calibration, bool) {
	for _, c := range r.Calibrate() {
		if c.Profile == key {
			return c, true
		}
	}
	return Calibration{}, false
}

// calibrationLines are the terminal's lines on what each profile's set
// means, one a profile; with the noise not measured, the one line that
// says so instead.
func calibrationLines(rep *Report) string {
	if s := rep.Noise.NotMeasured(); s != "" {
		return upperFirst(s) + ".\n"
	}
	var b strings.Builder
	for _, p := range rep.Profiles {
		if c, ok := rep.calibrationOf(p.Key); ok {
			fmt.Fprintf(&b, "%s: %s.", upperFirst(p.Name), c.Sentence())
			if len(p.Likely) > 0 {
				fmt.Fprintf(&b, " Besides its measured best and the pairs the data cannot separate from it: %s.", pairList(p.Likely))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// upperFirst capitalises s's first letter, for a sentence's start.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
