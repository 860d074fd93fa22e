package report

import (
	"math"
	"slices"

	"github.com/sweep-tool/sweep/sweep"
)

// Profile is a recommendation across CPU limits, as multipliers a person
// can put in a config: web threads = WebMult × CPUs, pool = DBMult × web
// threads.
type Profile struct {
	// Key is latency, balanced or throughput; Name and Use are for people.
	Key  string
	Name string
	Use  string
	// Found is false when no multiplier pair was measured, eligible, at
	// every CPU limit; Note then says so.
	Found bool
	// WebMult and DBMult are the pick: the pair of Set with the fewest
	// web threads, then the smallest pool (settle), which is Best when
	// the set holds it alone.
	WebMult float64
	DBMult  float64
	// Score is the pick's mean normalised objective over the CPU limits
	// (1 = best at every limit for throughput and latency).
	Score float64
	// Best is the measured best: the pair with the best mean objective
	// (Ranking's first).
	Best [2]float64
	// Equivalent lists the pairs the data cannot separate from Best:
	// within the noise band of it at every CPU limit.
	Equivalent [][2]float64
	// Likely lists the pairs, besides Best and Equivalent, that a re-run
	// on this host would pick often enough that the set of all three
	// covers about CalibratedShare of re-runs (Report.Calibrate), most
	// picked first.
	Likely [][2]float64
	Note   string
}

// inSet reports whether pair is in the profile's set: its measured best,
// one of its equivalents or one of its likely pairs.
func (p Profile) inSet(pair [2]float64) bool { return slices.Contains(p.Set(), pair) }

// Set lists the profile's set: Best, Equivalent, then Likely. The pick
// is one of them.
func (p Profile) Set() [][2]float64 {
	if !p.Found {
		return nil
	}
	return append(append([][2]float64{p.Best}, p.Equivalent...), p.Likely...)
}

// Admits reports whether other's pick agrees with p's (p being the full
// grid's): it lies in p's calibrated set (its measured best, one p's
// data cannot separate from that, or one a re-run would pick: inSet); or
// neither found any. It is how a strategy that measured less, or another run of
// the same grid, is judged against the grid.
func (p Profile) Admits(other Profile) bool {
	if !p.Found || !other.Found {
		return p.Found == other.Found
	}
	return p.inSet([2]float64{other.WebMult, other.DBMult})
}

// CellAt is the cell the profile's multipliers give at a CPU limit, by
// the grid's own rule (sweep.BuildPlan: rounded half to even, never below
// 1), whether or not the run measured that limit. Meaningful only when
// the profile was Found.
func (p Profile) CellAt(cpus float64) ProfileCell {
	c := sweep.BuildPlan([]float64{cpus}, []float64{p.WebMult}, []float64{p.DBMult})[0]
	return ProfileCell{Profile: p.Key, Cell: c.ID, WebThreads: c.WebThreads, DBPool: c.DBPool}
}

// Profile returns the recommendation's profile with key (latency,
// balanced or throughput); false for an unknown key.
func (r *Report) Profile(key string) (Profile, bool) {
	for _, p := range r.Profiles {
		if p.Key == key {
			return p, true
		}
	}
	return Profile{}, false
}

type profileRule struct {
	key, name, use string
	// value is a cell's objective at one CPU limit were its figures rps
	// and p99: higher is better, rising with RPS and falling with P99.
	value func(cr *CPUReport, rps, p99 float64) float64
	same  func(a, b *Cell) bool
}

// objective is the cell's objective at its mean figures.
func (rule profileRule) objective(cr *CPUReport, c *Cell) float64 {
	return rule.value(cr, c.RPS.Mean, c.P99.Mean)
}

var profileRules = []profileRule{
	{"latency", "latency-first", "short OLTP requests (EHR, patient portals)",
		func(cr *CPUReport, _, p99 float64) float64 { return cr.BestP99.Cell.P99.Mean / p99 }, sameP99},
	{"balanced", "balanced", "mixed traffic",
		func(cr *CPUReport, rps, p99 float64) float64 { return cr.norm.Balanced(rps, p99) }, sameBoth},
	{"throughput", "throughput-first", "analytics, bulk import",
		func(cr *CPUReport, rps, _ float64) float64 { return rps / cr.BestRPS.Cell.RPS.Mean }, sameRPS},
}

// recommend picks one multiplier pair per profile: the measured best
// and the pairs equivalent to it form its set, settle picks in it.
func recommend(per []*CPUReport) []Profile {
	out := make([]Profile, 0, len(profileRules))
	for _, rule := range profileRules {
		p := Profile{Key: rule.key, Name: rule.name, Use: rule.use, Score: math.NaN()}
		ranked := ranking(per, rule)
		if len(ranked) == 0 {
			p.Note = "no multiplier pair was measured without errors at every CPU limit"
			out = append(out, p)
			continue
		}
		p.Found, p.Best = true, ranked[0].Pair
		for _, pair := range commonPairs(per) {
			if pair != p.Best && equivalentEverywhere(per, pair, p.Best, rule.same) {
				p.Equivalent = append(p.Equivalent, pair)
			}
		}
		settleProfile(per, &p)
		out = append(out, p)
	}
	return out
}

// PairScore is a multiplier pair and its mean normalised objective under
// one profile.
type PairScore struct {
	Pair  [2]float64
	Score float64
}

// ProfileNames lists the profiles' names in report order: latency-first,
// balanced, throughput-first. They are what the report prints, what
// --profile takes and what JSON and exports carry.
func ProfileNames() []string {
	names := make([]string, len(profileRules))
	for i, r := range profileRules {
		names[i] = r.name
	}
	return names
}

// ProfileKey is the key of the profile named name; a key is accepted as
// its own name (latency, throughput: what --profile took before). False
// for anything else.
func ProfileKey(name string) (string, bool) {
	for _, r := range profileRules {
		if name == r.name || name == r.key {
			return r.key, true
		}
	}
	return "", false
}

// ProfileKeys lists the profiles' keys in report order: latency, balanced,
// throughput.
func ProfileKeys() []string {
	keys := make([]string, len(profileRules))
	for i, r := range profileRules {
		keys[i] = r.key
	}
	return keys
}

// Ranking returns every pair measured eligible at every CPU limit with its
// mean objective under the profile key, best first (equal scores in pair
// order); the first is what the report recommends. Nil for an unknown key.
func (r *Report) Ranking(key string) []PairScore {
	rule, ok := ruleOf(key)
	if !ok {
		return nil
	}
	return ranking(r.PerCPU, rule)
}

// Equivalent reports whether the report calls pairs a and b equivalent
// under the profile key: measured eligible at every CPU limit, with
// figures the data cannot separate at every one.
func (r *Report) Equivalent(key string, a, b [2]float64) bool {
	rule, ok := ruleOf(key)
	if !ok || !everywhere(r.PerCPU, a) || !everywhere(r.PerCPU, b) {
		return false
	}
	return a == b || equivalentEverywhere(r.PerCPU, a, b, rule.same)
}

// MayBeat reports whether the data cannot rule out that pair a does at
// least as well as pair b under the profile key. At each CPU limit the
// objectives' difference may be off by as much as a's figures at the
// favourable ends of their intervals (RPS high, P99 low) and b's at the
// unfavourable ends allow; over the CPU limits those tolerances add in
// quadrature, as independent errors do: each limit's two cells were
// measured next to each other (so drift between them is small) and
// apart from the other limits' cells. a may beat b when the sum of the
// differences plus that tolerance reaches zero. At one CPU limit this is
// a's favourable ends reaching b's unfavourable ones; adding the
// tolerances linearly instead would treat k limits' errors as all
// pointing one way, a band √k too wide. Both pairs must be measured
// eligible at every CPU limit. Pairs the report calls equivalent may
// beat each other; so may pairs that trade places across CPU limits with
// means within noise, which a screening strategy must not drop either.
func (r *Report) MayBeat(key string, a, b [2]float64) bool {
	rule, ok := ruleOf(key)
	if !ok || !everywhere(r.PerCPU, a) || !everywhere(r.PerCPU, b) {
		return false
	}
	if r.Equivalent(key, a, b) {
		return true
	}
	diff, tol2 := 0.0, 0.0
	for _, cr := range r.PerCPU {
		ca, cb := cr.grid[a], cr.grid[b]
		va, vb := rule.value(cr, ca.RPS.Mean, ca.P99.Mean), rule.value(cr, cb.RPS.Mean, cb.P99.Mean)
		tol := rule.value(cr, ca.RPS.Hi, ca.P99.Lo) - va + vb - rule.value(cr, cb.RPS.Lo, cb.P99.Hi)
		diff += va - vb
		tol2 += tol * tol
	}
	return diff+math.Sqrt(tol2) >= 0
}

func ruleOf(key string) (profileRule, bool) {
	for _, rule := range profileRules {
		if rule.key == key {
			return rule, true
		}
	}
	return profileRule{}, false
}

func ranking(per []*CPUReport, rule profileRule) []PairScore {
	pairs := commonPairs(per)
	out := make([]PairScore, len(pairs))
	for i, pair := range pairs {
		out[i] = PairScore{Pair: pair, Score: meanObjective(per, pair, rule)}
	}
	slices.SortStableFunc(out, func(a, b PairScore) int { return cmpFloat(b.Score, a.Score) })
	return out
}

// commonPairs lists the pairs with an eligible cell at every CPU limit,
// sorted by web then pool multiplier.
func commonPairs(per []*CPUReport) [][2]float64 {
	var pairs [][2]float64
	for p, c := range per[0].grid {
		if c.eligible() && everywhere(per, p) {
			pairs = append(pairs, p)
		}
	}
	slices.SortFunc(pairs, func(a, b [2]float64) int {
		if a[0] != b[0] {
			return cmpFloat(a[0], b[0])
		}
		return cmpFloat(a[1], b[1])
	})
	return pairs
}

func everywhere(per []*CPUReport, p [2]float64) bool {
	for _, cr := range per {
		if c := cr.grid[p]; c == nil || !c.eligible() {
			return false
		}
	}
	return true
}

func meanObjective(per []*CPUReport, pair [2]float64, rule profileRule) float64 {
	sum := 0.0
	for _, cr := range per {
		sum += rule.objective(cr, cr.grid[pair])
	}
	return sum / float64(len(per))
}

func equivalentEverywhere(per []*CPUReport, a, b [2]float64, same func(a, b *Cell) bool) bool {
	for _, cr := range per {
		if !same(cr.grid[a], cr.grid[b]) {
			return false
		}
	}
	return true
}
