package report

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// ReRuns is how many re-runs Calibrate simulates.
const ReRuns = 1000

// Calibration is how often a re-run on the same host would pick one of
// a profile's pairs: its pick or one the report calls equivalent.
type Calibration struct {
	Profile string `json:"profile"`
	// Pairs is the size of the set (the pick and its equivalents); Share
	// the simulated re-runs (of ReRuns) whose pick lay in it.
	Pairs int     `json:"pairs"`
	Share float64 `json:"share"`
	// Measured says whether the noise was the run's measured noise or
	// the assumed band.
	Measured bool `json:"measured"`
}

// Calibrate estimates, per profile found, the share of re-runs on this
// host whose pick would lie in the profile's equivalence set: ReRuns
// re-runs are drawn, each cell's RPS and p99 its mean × (1 + s·z), z
// standard normal and s = √2 × cv / √n with n the cell's ok
// repetitions and cv the run's noise (measured, or the assumed band
// read back as bandOf's inverse), drawn apart per cell and metric; each
// re-run is analysed as the report analyses the run (analyseCPU,
// ranking) and its pick looked up in the set. The √2 is the spread of a
// re-run's figure about this run's figure of the same cell: both carry
// the noise. The draws are seeded, so the report reads the same twice.
// It assumes the cells' errors independent: a drift that moves every
// cell alike is what Drift reports instead.
func (r *Report) Calibrate() []Calibration {
	if r.calibration != nil || len(r.PerCPU) == 0 {
		return r.calibration
	}
	cvR, cvP := r.Noise.RPSCV, r.Noise.P99CV
	if !r.Noise.Measured {
		cvR, cvP = r.Noise.RPS/(z95*math.Sqrt2), r.Noise.P99/(z95*math.Sqrt2)
	}
	hits := make([]int, len(profileRules))
	rng := rand.New(rand.NewPCG(26, 95))
	for range ReRuns {
		per := r.reRun(rng, cvR, cvP)
		if len(per) != len(r.PerCPU) {
			continue // every cell of a CPU limit drawn ineligible: no pick
		}
		for i, rule := range profileRules {
			if ranked := ranking(per, rule); len(ranked) > 0 && r.inSet(i, ranked[0].Pair) {
				hits[i]++
			}
		}
	}
	r.calibration = []Calibration{}
	for i, p := range r.Profiles {
		if p.Found {
			r.calibration = append(r.calibration, Calibration{Profile: p.Key, Pairs: 1 + len(p.Equivalent),
				Share: float64(hits[i]) / ReRuns, Measured: r.Noise.Measured})
		}
	}
	return r.calibration
}

// inSet reports whether pair is profile i's pick or one of its
// equivalents.
func (r *Report) inSet(i int, pair [2]float64) bool {
	p := r.Profiles[i]
	return p.Found && (pair == [2]float64{p.WebMult, p.DBMult} || slices.Contains(p.Equivalent, pair))
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

// Sentence says what the profile's equivalence set means.
func (c Calibration) Sentence() string {
	from := "the measured noise"
	if !c.Measured {
		from = "the assumed noise"
	}
	set := fmt.Sprintf("one of these %d pairs", c.Pairs)
	if c.Pairs == 1 {
		set = "this pair"
	}
	return fmt.Sprintf("a re-run on this host would pick %s in about %.0f %% of runs, from %s (%d simulated re-runs)",
		set, 100*c.Share, from, ReRuns)
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
// means, one a profile.
func calibrationLines(rep *Report) string {
	var b strings.Builder
	for _, p := range rep.Profiles {
		if c, ok := rep.calibrationOf(p.Key); ok {
			fmt.Fprintf(&b, "%s: %s.\n", upperFirst(p.Name), c.Sentence())
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
