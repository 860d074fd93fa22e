// Package export turns a finished sweep into settings to deploy (sweep
// export): the web threads and DB pool that one profile of the report's
// recommendation gives at a CPU budget, as an env file, a compose
// override or JSON.
//
// It decides nothing of its own, so it cannot disagree with the report:
// the multipliers are report's recommendation, the rounding is
// the grid's (report.Profile.CellAt, half to even), the override is
// package compose's (compose.Settings puts the CPU limit where the user's
// compose file keeps it), and a budget outside the measured CPU limits is
// quoted with the report's Universal Scalability Law prediction.
package export

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// The sources of an export's cell (Settings.Source).
const (
	SourceMeasured = "measured limit"
	SourceRule     = "rule across CPU limits"
)

// ErrNoPick means the profile asked for has no qualifying multiplier
// pair in the run; the error carries the report's reason. It is a result
// of the run, not bad input.
var ErrNoPick = errors.New("no qualifying multiplier pair")

// Options say what to export.
type Options struct {
	// Profile is latency-first, balanced or throughput-first
	// (report.ProfileNames; the keys latency and throughput too).
	Profile string
	// CPUs is the CPU budget to export settings for (> 0).
	CPUs float64
	// Format is what Write renders; FormatCompose makes Export read the
	// base compose files.
	Format Format
	// Compose names the stack's base compose files; empty: the files the
	// run's spec saved (relative to the working directory, as the run
	// resolved them).
	Compose []string
	// Manifests name a Kubernetes stack's manifests; empty: those the
	// run's spec saved.
	Manifests []string
	// Report is the analysis that picks the multipliers (error bound,
	// noise band), as for sweep report.
	Report report.Options
	// Env is the environment the compose files interpolate, as the
	// front end read it.
	Env sweep.Env
}

// Settings are the exported values; the JSON format prints them as they
// are.
type Settings struct {
	RunID   string `json:"run_id"`
	Profile string `json:"profile"`
	// Source says where the cell came from: SourceMeasured, the profile's
	// pick at a CPU limit the run measured (report.Pick.Chosen, its "Set
	// these" row), or SourceRule, the rule across CPU limits applied at a
	// budget it did not.
	Source string `json:"source"`
	// PickedBy says, at a measured limit where the data cannot separate
	// the cell from others, how it was picked among them and the cell
	// measured best when that is another (report.Pick.Note).
	PickedBy string `json:"picked_by,omitempty"`
	// WebMult and DBMult are the profile's multipliers from the report.
	WebMult float64 `json:"web_mult"`
	DBMult  float64 `json:"db_mult"`
	// CPUs is the budget; Cell, WebThreads and DBPool the cell the
	// multipliers give there by the grid's rule.
	CPUs       float64 `json:"cpus"`
	Cell       string  `json:"cell"`
	WebThreads int     `json:"web_threads"`
	DBPool     int     `json:"db_pool"`
	// Service is the run's target service; Env its swept variables (the
	// names the run used) with their values.
	Service string            `json:"service"`
	WebEnv  string            `json:"web_env"`
	PoolEnv string            `json:"pool_env"`
	Env     map[string]string `json:"env"`
	// ServiceEnv holds, by service, what goes to other services: the
	// pool when the run's pool_env was SERVICE:NAME (a pooler's pool).
	ServiceEnv map[string]map[string]string `json:"service_env,omitempty"`
	// MeasuredCPUs are the CPU limits with results; InRange says whether
	// CPUs lies within them.
	MeasuredCPUs []float64 `json:"measured_cpus"`
	InRange      bool      `json:"in_range"`
	// Prediction is the USL fit's best RPS at CPUs, only outside the
	// measured range and when the run has a fit.
	Prediction *report.PredictionDoc `json:"prediction,omitempty"`
	// Warnings are what a user should know before using the values.
	Warnings []string `json:"warnings"`

	base  *compose.Base
	files []string // the base compose files base was read from
	// container is the target Deployment's container, and poolContainers
	// those of a Deployment the pool goes to (kubernetes format)
	container      string
	poolContainers map[string][]string
}

// Export builds the settings opts asks for from run. Bad options are
// bad input naming the option; a run export cannot read (extra axes) is
// bad input of {report}, one the report cannot read its error or the
// results errors; a profile without a qualifying pair wraps ErrNoPick.
func Export(run *results.Run, opts Options) (*Settings, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if sl := run.Slices(); len(sl) > 1 {
		return nil, sweep.BadInput("report", "run %s has extra axes (%d slices: %s); export reads a run of one grid",
			run.RunID, len(sl), strings.Join(sl, "; "))
	}
	ropts := opts.Report
	ropts.PredictCPUs = []float64{opts.CPUs} // used only outside the measured limits
	rep, err := report.Build(run, ropts)
	if err != nil {
		return nil, err
	}
	key, _ := report.ProfileKey(opts.Profile)
	p, _ := rep.Profile(key)
	pick, measured := limitPick(rep, key, opts.CPUs)
	if !p.Found && !measured {
		return nil, fmt.Errorf("profile %s: %w: %s", p.Name, ErrNoPick, p.Note)
	}
	s := newSettings(rep, p, opts.CPUs, run.Service, pick)
	if !s.InRange {
		s.predict(rep)
	}
	switch opts.Format {
	case FormatCompose:
		if err := s.readBase(run, opts.Compose, opts.Env); err != nil {
			return nil, err
		}
	case FormatKubernetes:
		if err := s.readManifests(run, opts.Manifests); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (o Options) validate() error {
	if _, ok := report.ProfileKey(o.Profile); !ok {
		return sweep.BadInput("profile", "%q is not a profile; give one of %s", o.Profile,
			strings.Join(report.ProfileNames(), ", "))
	}
	if !(o.CPUs > 0) || o.CPUs > 1e6 {
		return sweep.BadInput("cpus", "%v is not a CPU budget; give a number > 0, e.g. 4", o.CPUs)
	}
	_, err := ParseFormat(string(o.Format))
	return err
}

// limitPick is the profile's pick at cpus when the run measured that CPU
// limit.
func limitPick(rep *report.Report, key string, cpus float64) (report.Pick, bool) {
	for _, cr := range rep.PerCPU {
		if cr.CPUs == cpus {
			p := cr.PickFor(key)
			return p, p.Cell != nil
		}
	}
	return report.Pick{}, false
}

// newSettings is the profile's cell at cpus with the run's names: at a
// measured limit its pick there (pick), else the rule across CPU limits.
func newSettings(rep *report.Report, p report.Profile, cpus float64, service string, pick report.Pick) *Settings {
	s := &Settings{RunID: rep.RunID, Profile: p.Name, WebMult: p.WebMult, DBMult: p.DBMult, CPUs: cpus,
		Service: service, WebEnv: rep.WebEnv, PoolEnv: rep.PoolEnv, Warnings: []string{}}
	c := s.pick(p, pick)
	s.Cell, s.WebThreads, s.DBPool = c.Cell, c.WebThreads, c.DBPool
	s.Env = map[string]string{s.WebEnv: strconv.Itoa(c.WebThreads)}
	if pool := (sweep.Spec{Service: service, PoolEnv: s.PoolEnv}).PoolTarget(); pool.Service == "" {
		s.Env[pool.Name] = strconv.Itoa(c.DBPool)
	} else {
		s.ServiceEnv = map[string]map[string]string{pool.Service: {pool.Name: strconv.Itoa(c.DBPool)}}
	}
	for _, cr := range rep.PerCPU {
		s.MeasuredCPUs = append(s.MeasuredCPUs, cr.CPUs)
	}
	s.InRange = cpus >= s.MeasuredCPUs[0] && cpus <= s.MeasuredCPUs[len(s.MeasuredCPUs)-1]
	if s.InRange && s.Source == SourceRule { // outside the range, predict says so
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s was not measured: the rule across CPU limits (web threads = %s × CPUs, "+
			"pool = %s × web threads) gives %s", cpusText(cpus), sweep.FormatNumber(p.WebMult), sweep.FormatNumber(p.DBMult), s.Cell))
	}
	return s
}

// pick is the cell the limit's pick chose when the run measured the
// limit (the source is then the measured limit), else from the
// profile's rule.
func (s *Settings) pick(p report.Profile, pick report.Pick) report.ProfileCell {
	rule := report.ProfileCell{}
	if p.Found {
		rule = p.CellAt(s.CPUs)
	}
	c := pick.Chosen()
	if c == nil {
		s.Source = SourceRule
		return rule
	}
	s.Source, s.PickedBy = SourceMeasured, pick.Note()
	return report.ProfileCell{Profile: p.Key, Cell: c.ID, WebThreads: c.WebThreads, DBPool: c.DBPool}
}

// predict adds the out-of-range warning with the report's USL prediction
// at s.CPUs, or the report's reason when it has no fit.
func (s *Settings) predict(rep *report.Report) {
	w := fmt.Sprintf("%s is outside the measured CPU limits (%s): the multipliers were chosen there",
		cpusText(s.CPUs), limitsText(s.MeasuredCPUs))
	doc := rep.Recommendation().USL
	if doc == nil {
		s.Warnings = append(s.Warnings, w+"; "+rep.USLNote)
		return
	}
	p := doc.Predictions[0]
	p.Settings = nil // the export is one profile's cell, already above
	s.Prediction = &p
	w += fmt.Sprintf("; the USL fit of the best RPS per CPU limit predicts %.0f RPS at %s", *p.RPS, cpusText(s.CPUs))
	if p.Lo != nil && p.Hi != nil {
		w += fmt.Sprintf(" (95 %% interval %.0f–%.0f)", *p.Lo, *p.Hi)
	} else {
		w += " (no interval)"
	}
	w += ", a curve, not a measurement"
	for _, pw := range p.Warnings {
		w += "; " + pw
	}
	s.Warnings = append(s.Warnings, w)
}

// cpusText is "1 CPU" or "2.5 CPUs".
func cpusText(n float64) string {
	if n == 1 {
		return "1 CPU"
	}
	return sweep.FormatNumber(n) + " CPUs"
}

// limitsText lists CPU limits as "1, 2, 4".
func limitsText(cpus []float64) string {
	parts := make([]string, len(cpus))
	for i, c := range cpus {
		parts[i] = sweep.FormatNumber(c)
	}
	return strings.Join(parts, ", ")
}

// readBase reads the stack's base compose files (files, or the run's).
func (s *Settings) readBase(run *results.Run, files []string, env sweep.Env) error {
	if len(files) == 0 {
		files = run.Compose
	}
	if len(files) == 0 {
		return sweep.BadInput("compose", "run %s saved no compose file in sweep.json; name the stack's compose files",
			run.RunID)
	}
	base, err := compose.ReadBase(files, "", env)
	if err != nil {
		return err
	}
	if !slices.Contains(base.Services, s.Service) {
		return sweep.BadInput("compose", "the run's target service %q is not in %s (services: %s)", s.Service,
			strings.Join(files, ", "), strings.Join(base.Services, ", "))
	}
	s.base, s.files = &base, files
	if base.NeedsCompat(s.Service) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the compose files keep the CPU limit of %s in "+
			"deploy.resources.limits.cpus: docker compose v2 applies it, docker-compose v1 only with --compatibility",
			s.Service))
	}
	return nil
}
