package limit

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// Defaults of the search flags (sweep limit, run --find-limit).
const (
	// DefaultStartLevel is the ramp's first level: 10 VUs or
	// iterations/s.
	DefaultStartLevel = 10
	// DefaultMaxLevel is the highest level the ramp may reach.
	DefaultMaxLevel = 10000
	DefaultFactor   = 2
	DefaultMaxSteps = 8
	// closeEnough stops the bisection when the failing level is within
	// this share above the passing one.
	closeEnough = 0.05
)

// Config is what a search is asked to do.
type Config struct {
	// Model says what a level counts (VUs or iterations/s).
	Model Model `json:"model"`
	// SLO is written once, as the result's slo.
	SLO SLO `json:"-"`
	// Start is the first level; the ramp multiplies it by Factor while the
	// SLO holds, up to Max.
	Start  int     `json:"start_level"`
	Max    int     `json:"max_level"`
	Factor float64 `json:"factor"`
	// MaxSteps bounds the measured levels of the ramp and the bisection
	// together.
	MaxSteps int `json:"max_steps"`
	// Levels, when set, are measured exactly, in order, instead of
	// searching (MaxSteps does not apply).
	Levels []int `json:"levels,omitempty"`
}

// Validate checks the config before anything starts; errors are BadInput
// naming the flag.
func (c Config) Validate() error {
	switch {
	case c.Model != ModelVUs && c.Model != ModelRate:
		return sweep.BadInput("find_limit.model", "%q is not vus or rate", c.Model)
	case len(c.SLO) == 0:
		return sweep.BadInput("find_limit.slo", "no terms; give e.g. %s", DefaultSLO)
	case len(c.Levels) > 0:
		return checkLevels(c.Levels)
	case c.Start <= 0:
		return sweep.BadInput("find_limit.start_level", "must be a whole number > 0")
	case c.Max <= 0:
		return sweep.BadInput("find_limit.max_level", "must be a whole number > 0")
	case c.Start > c.Max:
		return sweep.BadInput("find_limit.start_level", "%d is above {find_limit.max_level} %d", c.Start, c.Max)
	case !(c.Factor > 1) || math.IsInf(c.Factor, 0):
		return sweep.BadInput("find_limit.factor", "must be a number > 1, e.g. 2")
	case c.MaxSteps < 1:
		return sweep.BadInput("find_limit.max_steps", "must be at least 1")
	}
	return nil
}

// ConfigOf reads a search as asked (flags or a saved spec) and validates
// it; an empty model follows load's kind (rate: iterations/s, else VUs).
func ConfigOf(f sweep.FindLimit, load sweep.LoadSpec) (Config, error) {
	cfg := Config{Start: f.Start, Max: f.Max, Factor: f.Factor, MaxSteps: f.MaxSteps, Levels: f.Levels}
	var err error
	if cfg.SLO, err = ParseSLO(f.SLO); err != nil {
		return cfg, err
	}
	model := f.Model
	if model == "" {
		model = string(ModelVUs)
		if load.Rate > 0 {
			model = string(ModelRate)
		}
	}
	if cfg.Model, err = ParseModel(model); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

func checkLevels(levels []int) error {
	for i, l := range levels {
		if l <= 0 {
			return sweep.BadInput("find_limit.levels", "%d: levels must be whole numbers > 0", l)
		}
		if i > 0 && l <= levels[i-1] {
			return sweep.BadInput("find_limit.levels", "%d follows %d: the levels must be increasing", l, levels[i-1])
		}
	}
	return nil
}

// ParseLevels parses --levels: increasing whole numbers > 0, separated by
// commas.
func ParseLevels(text string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(text, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, sweep.BadInput("find_limit.levels", "%q is not a whole number; give increasing levels like 10,20,40", strings.TrimSpace(f))
		}
		out = append(out, v)
	}
	return out, checkLevels(out)
}

// Measure runs one level and reads it (Level and Step are set by the
// search, and so is the SLO verdict). An error ends the search.
type Measure func(ctx context.Context, level int) (Level, error)

// Search finds the safe limit: it measures Start, then multiplies the
// level by Factor while the SLO holds (capped at Max); at the first
// failing level it bisects between the last passing and the first failing
// level until they are adjacent or within 5 %, all within MaxSteps
// measured levels. With Levels it measures exactly those. On an error
// (e.g. the run was interrupted) it returns what it has so far.
func Search(ctx context.Context, cfg Config, measure Measure) (Result, error) {
	s := &search{cfg: cfg, measure: measure}
	var err error
	if len(cfg.Levels) > 0 {
		err = s.explicit(ctx)
	} else if err = s.ramp(ctx); err == nil {
		err = s.bisect(ctx)
	}
	return s.result(), err
}

type search struct {
	cfg     Config
	measure Measure
	levels  []Level
	lo, hi  int // last passing, first failing (0: none yet)
	stopped string
}

// step measures one level and judges it against the SLO.
func (s *search) step(ctx context.Context, level int) (bool, error) {
	l, err := s.measure(ctx, level)
	if err != nil {
		return false, fmt.Errorf("level %d: %w", level, err)
	}
	l.Level, l.Step = level, len(s.levels)+1
	l.SLOOK, l.Why = s.cfg.SLO.Check(l)
	s.levels = append(s.levels, l)
	return l.SLOOK, nil
}

func (s *search) explicit(ctx context.Context) error {
	for _, level := range s.cfg.Levels {
		if _, err := s.step(ctx, level); err != nil {
			return err
		}
	}
	s.stopped = "measured the given levels"
	return nil
}

// ramp steps up geometrically until a level fails, Max passes or the
// steps run out.
func (s *search) ramp(ctx context.Context) error {
	for level := s.cfg.Start; ; {
		if len(s.levels) >= s.cfg.MaxSteps {
			s.stopped = "max-steps reached while ramping up"
			return nil
		}
		ok, err := s.step(ctx, level)
		if err != nil {
			return err
		}
		if !ok {
			s.hi = level
			return nil
		}
		s.lo = level
		if level >= s.cfg.Max {
			s.stopped = "max-level holds the SLO"
			return nil
		}
		next := int(math.Ceil(float64(level)*s.cfg.Factor - 1e-9))
		level = min(s.cfg.Max, max(level+1, next))
	}
}

// bisect narrows [lo, hi] while both are known and far enough apart.
func (s *search) bisect(ctx context.Context) error {
	if s.hi == 0 {
		return nil
	}
	if s.lo == 0 {
		s.stopped = "the first level fails"
		return nil
	}
	for !bracketed(s.lo, s.hi) {
		if len(s.levels) >= s.cfg.MaxSteps {
			s.stopped = "max-steps reached while bisecting"
			return nil
		}
		mid := s.lo + (s.hi-s.lo)/2
		ok, err := s.step(ctx, mid)
		if err != nil {
			return err
		}
		if ok {
			s.lo = mid
		} else {
			s.hi = mid
		}
	}
	s.stopped = fmt.Sprintf("bracketed: %d holds, %d fails", s.lo, s.hi)
	return nil
}

// bracketed reports whether the passing and failing levels are adjacent
// or hi is within 5 % above lo.
func bracketed(lo, hi int) bool {
	return hi-lo <= 1 || float64(hi) <= float64(lo)*(1+closeEnough)
}

// result orders the levels and derives the safe limit and the bottleneck.
func (s *search) result() Result {
	levels := slices.Clone(s.levels)
	slices.SortStableFunc(levels, func(a, b Level) int { return a.Level - b.Level })
	r := Result{SLO: s.cfg.SLO, Config: s.cfg, Levels: levels, Stopped: s.stopped}
	for _, l := range levels {
		if !l.SLOOK {
			b := Classify(l)
			r.Bottleneck = &b
			break
		}
		r.SafeLimit = &SafeLimit{Model: s.cfg.Model, Level: l.Level}
	}
	return r
}

// Resolved is the search f as a spec records it: validated, its model
// resolved from load when not given (see ConfigOf).
func Resolved(f sweep.FindLimit, load sweep.LoadSpec) (*sweep.FindLimit, error) {
	cfg, err := ConfigOf(f, load)
	if err != nil {
		return nil, err
	}
	f.Model = string(cfg.Model)
	return &f, nil
}
