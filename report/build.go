package report

import (
	"fmt"
	"slices"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Report is everything the renderers show, computed once by Build.
type Report struct {
	RunID   string
	WebEnv  string
	PoolEnv string
	// Pool is where the pool lived (Pool.Service: the service it went to
	// with pool_env SERVICE:NAME, e.g. a PgBouncer's; Pool.PerWeb: one
	// per web worker), so how many sessions it let the database see.
	Pool    sweep.PoolShape
	Options Options
	// Cells lists every planned cell in plan order.
	Cells []*Cell
	// PerCPU holds one analysis per CPU limit, ascending.
	PerCPU []*CPUReport
	// Profiles are latency-first, balanced and throughput-first, in that
	// order.
	Profiles   []Profile
	Scaling    Scaling
	PoolEffect PoolEffect
	// PoolRules hold the pool-sizing rule of thumb beside the measured
	// best pools, per CPU limit whose database cores are known.
	PoolRules []PoolRule
	// Gains measure each profile's pick against the baseline cell, per
	// CPU limit with one (run with a baseline).
	Gains []Gain
	// USL is the Universal Scalability Law fitted to the best RPS per CPU
	// limit, LimitUSL to the best safe limits; nil without a fit, and
	// USLNote then says why.
	USL      *USL
	LimitUSL *USL
	USLNote  string
	// Missing lists planned cells with no finished repetition; Warnings
	// are notices from reading the run.
	Missing  []string
	Warnings []string
	// Strategy is the run's strategy ("" for the grid, StrategyHalving);
	// Screened lists a halving run's cells measured only in screening
	// rounds.
	Strategy string
	// MaxRepeat is the cap of the run's automatic repetitions (0: none):
	// the ties the recommendation lists remained at that cap.
	MaxRepeat int
	Screened  []string
	// Repeated is true when at least one cell has two or more ok
	// repetitions (so some intervals are confidence intervals).
	Repeated bool
	// Noise is the run's noise band per metric, measured from its
	// control cell or assumed (Options.NoiseBand), and where it came from.
	Noise Noise
	// Drift is the control cell's trend beyond its noise, with the cells
	// it marks; nil when it did not drift (or too few controls finished).
	Drift *Drift
	// Nodes says which swarm node measured which cell, when the target
	// ran on two or more (run --parallel); nil otherwise.
	Nodes []NodeCells
	// K6Dashboards are the repetitions with k6's dashboard report.
	K6Dashboards []K6Dashboard

	run *results.Run
	// norm is the normalisation Build scored the balanced profile by
	// (a halving run's round 1), for Calibrate's re-runs; calibration
	// what Calibrate found, once asked.
	norm        map[float64]Ranges
	calibration []Calibration
	// screenNoise is a halving run's first-round noise as its finals show
	// it (screenNoise); zero when not estimated.
	screenNoise relNoise
	linkBase    string // from the report's folder to the run directory; "" when the same
	runDir      string // the run directory as the user named it, for the commands shown; "" shows RUN
}

// Build analyses run with opts, every profile's set calibrated
// (Calibrate: ReRuns simulated re-runs). It fails only on bad options or
// a run without a single ok cell.
func Build(run *results.Run, opts Options) (*Report, error) {
	rep, err := BuildPicks(run, opts)
	if err == nil {
		rep.Calibrate() // each profile's Likely pairs, before anyone reads a profile
	}
	return rep, err
}

// BuildPicks is Build without the calibration: the profiles' picks and
// equivalents, no Likely pairs (Calibrate adds them and their
// calibration when called). For a strategy that ranks rounds or
// replays many times over and reads the picks alone: the simulated
// re-runs cost about a thousand analyses of the run.
func BuildPicks(run *results.Run, opts Options) (*Report, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	rep := &Report{
		RunID: run.RunID, WebEnv: orDefault(run.WebEnv, "web threads"),
		PoolEnv: orDefault(run.PoolEnv, "pool size"), Pool: poolShape(run), Options: opts,
		Missing: run.Missing, Warnings: run.Warnings, K6Dashboards: findK6Dashboards(run), run: run,
		Strategy: run.Strategy, Screened: run.Screened, MaxRepeat: run.MaxRepeat,
	}
	rep.Warnings = append(slices.Clip(rep.Warnings), placementWarnings(run)...)
	// an interleaved run's figures are read against their rounds
	paired, pairing := pairRun(run)
	rep.Noise, rep.Drift = runNoise(paired, opts), RunDrift(run)
	rep.Noise.Pairing = pairing
	if rep.Drift != nil {
		rep.Warnings = append(rep.Warnings, rep.Drift.Sentence())
	}
	rep.Warnings = append(rep.Warnings, nodeWarnings(run, rep.Noise.RPS)...)
	rep.Nodes = nodeCells(run)
	byCPU := map[float64][]*Cell{}
	for _, rc := range paired.Cells {
		c := summariseAt(rc, run.Service, rep.Pool, opts, rep.Noise)
		c.paired = pairing.of(c.ID)
		c.Drifted = rep.Drift != nil && slices.Contains(rep.Drift.Cells, c.ID)
		rep.Cells = append(rep.Cells, c)
		byCPU[c.CPUs] = append(byCPU[c.CPUs], c)
		rep.Repeated = rep.Repeated || c.RPS.N >= 2
	}
	cpus := make([]float64, 0, len(byCPU))
	for cpu := range byCPU {
		cpus = append(cpus, cpu)
	}
	slices.Sort(cpus)
	norm, noise := normalisation(run, rep.Cells, opts)
	rep.norm = norm
	rep.screenNoise = noise
	for _, cpu := range cpus {
		var stored *Ranges
		if r, ok := norm[cpu]; ok {
			stored = &r
		}
		if cr := analyseCPU(cpu, byCPU[cpu], stored); cr != nil {
			rep.PerCPU = append(rep.PerCPU, cr)
		}
	}
	if len(rep.PerCPU) == 0 {
		return nil, &noMatrixError{run: run.RunID, why: whyNoMatrix(rep.Cells)}
	}
	rep.Profiles = recommend(rep.PerCPU)
	rep.Scaling = scaling(rep.PerCPU)
	rep.USL, rep.LimitUSL, rep.USLNote = fitScaling(rep.PerCPU, opts.PredictCPUs)
	rep.PoolEffect = poolEffect(rep.PerCPU, rep.Noise.RPS)
	rep.PoolRules = poolRules(rep.PerCPU, rep.Pool, opts.DBService, run.HostCPUs)
	rep.settled()
	return rep, nil
}

// settled derives what rests on the profiles' picks: the gains against
// the baseline and the cells the picks give at the USL's predictions.
// BuildPicks calls it, and Calibrate again once it settled the picks in
// the grown sets.
func (r *Report) settled() {
	r.Gains = gains(r.PerCPU, r.Profiles)
	if r.USL == nil {
		return
	}
	for i := range r.USL.Predictions {
		pr := &r.USL.Predictions[i]
		pr.Settings = nil
		for _, p := range r.Profiles {
			if p.Found {
				pr.Settings = append(pr.Settings, p.CellAt(pr.CPUs))
			}
		}
	}
}

// poolShape is where run's pool lived; the target's replicas are not
// recorded, so they count as 1.
func poolShape(run *results.Run) sweep.PoolShape {
	return sweep.Spec{Service: run.Service, PoolEnv: run.PoolEnv, PoolPerWeb: run.PoolPerWeb}.PoolShape(0)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// HasMetric reports whether any cell carries m.
func (r *Report) HasMetric(m Metric) bool {
	for _, c := range r.Cells {
		if c.Status == results.StatusOK && c.value(m) != nil {
			return true
		}
	}
	return false
}

// NoiseNote is the sentence the report prints about how ties are judged;
// why the noise was not measured is Noise.NotMeasured's.
func (r *Report) NoiseNote() string {
	single := fmt.Sprintf("figures measured once carry an assumed noise band of %g %%: "+
		"cells closer than that are reported as equivalent", 100*r.Noise.RPS)
	if r.Noise.Measured {
		single = "figures measured once carry the noise " + r.Noise.Sentence() +
			"; cells closer than that are reported as equivalent"
	}
	if p := r.Noise.Pairing; p != nil {
		return p.Sentence() + "; cells whose interval overlaps the winner's are reported as equivalent; " + single
	}
	if r.Repeated {
		return "figures with repetitions carry a 95 % confidence interval (Student's t); " +
			"cells whose interval overlaps the winner's are reported as equivalent; " + single
	}
	return "no cell was repeated, so " + single
}
