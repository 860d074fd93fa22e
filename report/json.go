package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sweep-tool/sweep/results"
)

// Recommendation is the document `sweep report --json` prints: per CPU
// limit the winners and their ties, and the profiles as multipliers.
type Recommendation struct {
	RunID string `json:"run_id"`
	// Strategy is the strategy that measured the run; absent for the grid.
	Strategy string     `json:"strategy,omitempty"`
	Options  Options    `json:"options"`
	PerCPU   []CPUDoc   `json:"per_cpu"`
	Profile  ProfileSet `json:"recommendation"`
	// Picks lists per CPU limit and profile (by its name: ProfileNames)
	// the pick, what the report's "Set these" shows and sweep export
	// --cpus exports at a measured limit: the measured best, or among
	// the cells the data cannot separate from it the one with the fewest
	// threads, then the smallest pool. The per_cpu winners best_rps,
	// best_p99 and balanced are the measured bests.
	Picks []PickDoc `json:"picks"`
	// Rule is the rule across CPU limits per profile name, for budgets
	// not measured; the same as recommendation under the older keys.
	Rule map[string]ProfileDoc `json:"rule"`
	// USL is the scalability fit and its predictions; absent with fewer
	// than MinUSLPoints CPU limits.
	USL *USLDoc `json:"usl,omitempty"`
}

// PickDoc is one profile's pick at one CPU limit.
type PickDoc struct {
	CPUs    float64 `json:"cpus"`
	Profile string  `json:"profile"`
	Cell    CellDoc `json:"cell"`
	// Ties are the other cells of the set the pick was made in.
	Ties []string `json:"cannot_separate"`
	// PickedBy says how it was picked among them (SettleNote); absent
	// for a set of one.
	PickedBy string `json:"picked_by,omitempty"`
	// MeasuredBest is the cell measured best there, when it is not the
	// pick.
	MeasuredBest *CellDoc `json:"measured_best,omitempty"`
}

// CPUDoc is one CPU limit's winners. Ties maps best_rps, best_p99 and
// balanced to the ids of the cells equivalent to each winner.
type CPUDoc struct {
	CPUs     float64 `json:"cpus"`
	BestRPS  CellDoc `json:"best_rps"`
	BestP99  CellDoc `json:"best_p99"`
	Balanced CellDoc `json:"balanced"`
	// BestLimit is the cell with the highest safe limit (run --find-limit
	// only), with its level.
	BestLimit *LimitDoc           `json:"best_limit,omitempty"`
	Ties      map[string][]string `json:"ties"`
	// PoolRule is the pool-sizing rule of thumb beside the best pools,
	// when the database's cores are known.
	PoolRule *PoolRule `json:"pool_rule,omitempty"`
	// Baseline is the cell of the user's current settings and VsBaseline
	// each profile's pick against it (run with a baseline only).
	Baseline   *CellDoc `json:"baseline,omitempty"`
	VsBaseline []Gain   `json:"vs_baseline,omitempty"`
}

// LimitDoc is the cell with the highest safe limit: the mean level over
// its repetitions, and the range [low, fails_at) the searches bracket.
type LimitDoc struct {
	CellDoc
	Model      string  `json:"model"`
	Level      float64 `json:"level"`
	Low        int     `json:"low"`
	FailsAt    int     `json:"fails_at,omitempty"`
	Bottleneck string  `json:"bottleneck,omitempty"`
}

// CellDoc is a winning cell and its figures; the *_ci pairs are the
// intervals used to judge ties.
type CellDoc struct {
	Cell       string     `json:"cell"`
	WebThreads int        `json:"web_threads"`
	DBPool     int        `json:"db_pool"`
	WebMult    float64    `json:"web_mult"`
	DBMult     float64    `json:"db_mult"`
	Reps       int        `json:"reps"`
	RPS        float64    `json:"rps"`
	RPSCI      [2]float64 `json:"rps_ci"`
	P99MS      float64    `json:"p99_ms"`
	P99CI      [2]float64 `json:"p99_ci"`
	ErrorRate  float64    `json:"error_rate"`
}

// ProfileSet holds the three profiles.
type ProfileSet struct {
	Throughput ProfileDoc `json:"throughput"`
	Balanced   ProfileDoc `json:"balanced"`
	Latency    ProfileDoc `json:"latency"`
}

// ProfileDoc is one profile's multipliers, the pick (Profile): WebMult
// and DBMult are null when no pair qualified (Note says why).
type ProfileDoc struct {
	WebMult *float64 `json:"web_mult"`
	DBMult  *float64 `json:"db_mult"`
	// MeasuredBest is the pair with the best mean objective (null with
	// no pick); Equivalent the pairs the data cannot separate from it;
	// Likely the pairs a re-run may also pick (Profile.Likely). The pick
	// is one of the three.
	MeasuredBest *MultDoc  `json:"measured_best"`
	Equivalent   []MultDoc `json:"equivalent"`
	Likely       []MultDoc `json:"likely"`
	// PickedBy says how the pick was made in a set of more than one pair
	// (SettleNote).
	PickedBy string `json:"picked_by,omitempty"`
	Note     string `json:"note,omitempty"`
}

// multDocs is pairs as documents, [] for none.
func multDocs(pairs [][2]float64) []MultDoc {
	out := []MultDoc{}
	for _, e := range pairs {
		out = append(out, MultDoc{e[0], e[1]})
	}
	return out
}

// MultDoc is a multiplier pair.
type MultDoc struct {
	WebMult float64 `json:"web_mult"`
	DBMult  float64 `json:"db_mult"`
}

// Recommendation builds the --json document.
func (r *Report) Recommendation() Recommendation {
	doc := Recommendation{RunID: r.RunID, Strategy: r.Strategy, Options: r.Options, PerCPU: []CPUDoc{}}
	for _, cr := range r.PerCPU {
		d := CPUDoc{
			CPUs: cr.CPUs, BestRPS: cellDoc(cr.BestRPS.Cell), BestP99: cellDoc(cr.BestP99.Cell),
			Balanced: cellDoc(cr.Balanced.Cell),
			Ties: map[string][]string{
				"best_rps": ids(cr.BestRPS.Ties), "best_p99": ids(cr.BestP99.Ties), "balanced": ids(cr.Balanced.Ties),
			},
		}
		if c := cr.BestLimit.Cell; c != nil && c.SafeLimit != nil {
			l := c.SafeLimit
			d.BestLimit = &LimitDoc{CellDoc: cellDoc(c), Model: l.Model, Level: l.Level.Mean, Low: l.Low,
				FailsAt: l.FailsAt, Bottleneck: l.Bottleneck}
			d.Ties["best_limit"] = ids(cr.BestLimit.Ties)
		}
		for i := range r.PoolRules {
			if r.PoolRules[i].CPUs == cr.CPUs {
				d.PoolRule = &r.PoolRules[i]
			}
		}
		if b := cr.Baseline; b != nil && b.Status == results.StatusOK {
			doc := cellDoc(b)
			d.Baseline = &doc
		}
		for _, g := range r.Gains {
			if g.CPUs == cr.CPUs {
				d.VsBaseline = append(d.VsBaseline, g)
			}
		}
		doc.PerCPU = append(doc.PerCPU, d)
	}
	docs := map[string]*ProfileDoc{
		"throughput": &doc.Profile.Throughput, "balanced": &doc.Profile.Balanced, "latency": &doc.Profile.Latency,
	}
	doc.Rule = map[string]ProfileDoc{}
	for _, p := range r.Profiles {
		d := docs[p.Key]
		d.Equivalent, d.Likely, d.Note = multDocs(p.Equivalent), multDocs(p.Likely), p.Note
		if p.Found {
			d.WebMult, d.DBMult = &p.WebMult, &p.DBMult
			d.MeasuredBest, d.PickedBy = &MultDoc{p.Best[0], p.Best[1]}, SettleNote(len(p.Set()))
		}
		doc.Rule[p.Name] = *d
	}
	doc.Picks = []PickDoc{}
	for _, b := range r.LimitPicks() {
		c := b.Pick.Chosen()
		d := PickDoc{CPUs: b.CPUs, Profile: b.Profile, Cell: cellDoc(c), Ties: ids(b.Pick.Others()),
			PickedBy: SettleNote(len(b.Pick.Set()))}
		if b.Pick.Cell != c {
			best := cellDoc(b.Pick.Cell)
			d.MeasuredBest = &best
		}
		doc.Picks = append(doc.Picks, d)
	}
	if doc.USL = uslDoc(r.USL, false); doc.USL != nil {
		doc.USL.SafeLimit = uslDoc(r.LimitUSL, true)
	}
	return doc
}

func cellDoc(c *Cell) CellDoc {
	return CellDoc{
		Cell: c.ID, WebThreads: c.WebThreads, DBPool: c.DBPool, WebMult: c.WebMult, DBMult: c.DBMult,
		Reps: c.RPS.N, RPS: c.RPS.Mean, RPSCI: [2]float64{c.RPS.Lo, c.RPS.Hi},
		P99MS: c.P99.Mean, P99CI: [2]float64{c.P99.Lo, c.P99.Hi}, ErrorRate: c.ErrorRate.Mean,
	}
}

func ids(cells []*Cell) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = c.ID
	}
	return out
}

// WriteJSON writes the recommendation document (the --json output) as one
// indented JSON document.
func WriteJSON(w io.Writer, rep *Report) error {
	return encodeJSON(w, rep.Recommendation())
}

// resultsDoc is results.json: the recommendation plus every cell's
// summary and the scaling and pool analyses.
type resultsDoc struct {
	Recommendation
	Noise string `json:"noise"`
	// NoiseBands is the noise the ties were judged at, measured or
	// assumed; Drift the control's drift and the cells it marks.
	NoiseBands Noise  `json:"noise_bands"`
	Drift      *Drift `json:"drift,omitempty"`
	// Calibration says per profile how often a re-run would pick in
	// its equivalence set (Report.Calibrate); none when the noise was
	// not measured, and NotMeasured then says so (Noise.NotMeasured).
	Calibration []Calibration `json:"calibration"`
	NotMeasured string        `json:"noise_not_measured,omitempty"`
	Cells       []*Cell       `json:"cells"`
	Scaling     Scaling       `json:"scaling"`
	PoolEffect  PoolEffect    `json:"pool_effect"`
	Missing     []string      `json:"missing"`
	Screened    []string      `json:"screened,omitempty"`
	Warnings    []string      `json:"warnings"`
	// Nodes: which swarm node measured which cell (run --parallel).
	Nodes []NodeCells `json:"nodes,omitempty"`
}

// WriteResultsJSON writes results.json.
func WriteResultsJSON(w io.Writer, rep *Report) error {
	return encodeJSON(w, resultsDoc{
		Recommendation: rep.Recommendation(), Noise: rep.NoiseNote(), NoiseBands: rep.Noise, Drift: rep.Drift,
		Calibration: rep.Calibrate(), NotMeasured: rep.Noise.NotMeasured(), Cells: rep.Cells,
		Scaling: rep.Scaling, PoolEffect: rep.PoolEffect,
		Missing: nonNil(rep.Missing), Screened: rep.Screened, Warnings: nonNil(rep.Warnings),
		Nodes: rep.Nodes,
	})
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode json: %w", err)
	}
	return nil
}
