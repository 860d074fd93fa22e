package limit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

var testSLO = SLO{{"success", 99}, {"p99", 20}}

// fake measures a level: p99 is 10 ms where pass says so, 40 ms elsewhere.
type fake struct {
	pass     func(level int) bool
	measured []int
	failAt   int // return an error on this step (0: never)
}

func (f *fake) measure(ctx context.Context, level int) (Level, error) {
	f.measured = append(f.measured, level)
	if len(f.measured) == f.failAt {
		return Level{}, sweep.ErrInterrupted
	}
	p99 := 40.0
	if f.pass(level) {
		p99 = 10
	}
	return Level{Requests: int64(level) * 100, SuccessRate: 1, LatencyMS: results.Latency{P99: p99}}, nil
}

func upTo(limit int) func(int) bool { return func(l int) bool { return l <= limit } }

func config(start, maxLevel int, factor float64, steps int) Config {
	return Config{Model: ModelVUs, SLO: testSLO, Start: start, Max: maxLevel, Factor: factor, MaxSteps: steps}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		cfg      Config
		pass     func(int) bool
		measured []int
		safe     int // 0: none
		failing  int // bottleneck level, 0: none
		stopped  string
	}{
		{"monotone to adjacent", config(1, 1000, 2, 20), upTo(37),
			[]int{1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37}, 37, 38, "bracketed"},
		{"within 5 percent", config(100, 10000, 2, 20), upTo(370),
			[]int{100, 200, 400, 300, 350, 375, 362}, 362, 375, "bracketed"},
		// 42 is exactly 5 % above 40 (40 × 1.05 = 42 in floating point too).
		{"exactly 5 percent", config(10, 1000, 2, 20), upTo(41),
			[]int{10, 20, 40, 80, 60, 50, 45, 42}, 40, 42, "bracketed"},
		{"max steps while ramping", config(1, 1000, 2, 4), upTo(37), []int{1, 2, 4, 8}, 8, 0, "while ramping"},
		{"max steps while bisecting", config(1, 1000, 2, 8), upTo(37),
			[]int{1, 2, 4, 8, 16, 32, 64, 48}, 32, 48, "while bisecting"},
		{"max level holds", config(1, 100, 2, 20), upTo(1000), []int{1, 2, 4, 8, 16, 32, 64, 100}, 100, 0, "max-level"},
		{"first level fails", config(10, 100, 2, 8), upTo(5), []int{10}, 0, 10, "first level"},
		{"factor 1.5 rounds up", config(1, 6, 1.5, 20), upTo(100), []int{1, 2, 3, 5, 6}, 6, 0, "max-level"},
		{"a factor barely above 1 still steps up", config(1, 3, 1+1e-10, 20), upTo(100), []int{1, 2, 3}, 3, 0, "max-level"},
		{"noise below the limit", config(1, 1000, 2, 20), func(l int) bool { return l <= 30 && l != 16 },
			[]int{1, 2, 4, 8, 16, 12, 14, 15}, 15, 16, "bracketed"},
		{"lucky level above the limit", config(1, 1000, 2, 20), func(l int) bool { return l <= 20 || l == 24 },
			[]int{1, 2, 4, 8, 16, 32, 24, 28, 26, 25}, 24, 25, "bracketed"},
		{"explicit levels", Config{Model: ModelRate, SLO: testSLO, Levels: []int{10, 20, 40, 80}}, upTo(30),
			[]int{10, 20, 40, 80}, 20, 40, "given levels"},
		{"explicit with a pass above a fail", Config{Model: ModelVUs, SLO: testSLO, Levels: []int{10, 20, 40}},
			func(l int) bool { return l != 20 }, []int{10, 20, 40}, 10, 20, "given levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &fake{pass: tc.pass}
			r, err := Search(t.Context(), tc.cfg, f.measure)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.measured, tc.measured) {
				t.Errorf("measured %v, want %v", f.measured, tc.measured)
			}
			checkResult(t, r, tc.safe, tc.failing)
			if !strings.Contains(r.Stopped, tc.stopped) {
				t.Errorf("stopped %q, want it to mention %q", r.Stopped, tc.stopped)
			}
		})
	}
}

// TestSearchNumbersSteps: each level records the step that measured it,
// in the order measured, while the levels are listed by level.
func TestSearchNumbersSteps(t *testing.T) {
	t.Parallel()
	f := &fake{pass: upTo(37)}
	r, err := Search(t.Context(), config(1, 1000, 2, 20), f.measure)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range r.Levels {
		if want := slices.Index(f.measured, l.Level) + 1; l.Step != want {
			t.Errorf("level %d: step %d, want %d (measured %v)", l.Level, l.Step, want, f.measured)
		}
	}
}

func checkResult(t *testing.T, r Result, safe, failing int) {
	t.Helper()
	switch {
	case safe == 0 && r.SafeLimit != nil:
		t.Errorf("safe limit %d, want none", r.SafeLimit.Level)
	case safe != 0 && (r.SafeLimit == nil || r.SafeLimit.Level != safe || r.SafeLimit.Model != r.Config.Model):
		t.Errorf("safe limit %+v, want %d", r.SafeLimit, safe)
	}
	switch {
	case failing == 0 && r.Bottleneck != nil:
		t.Errorf("bottleneck %+v, want none", r.Bottleneck)
	case failing != 0 && (r.Bottleneck == nil || r.Bottleneck.Level != failing):
		t.Errorf("bottleneck %+v, want one at %d", r.Bottleneck, failing)
	}
	if !slices.IsSortedFunc(r.Levels, func(a, b Level) int { return a.Level - b.Level }) {
		t.Errorf("levels are not sorted: %v", r.Levels)
	}
}

// TestSearchBounds checks the search's promises over many random limits:
// at most MaxSteps levels, none twice, all within [Start, Max], and when
// it stopped bracketed, the safe and failing levels adjacent or within
// 5 %.
func TestSearchBounds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		cfg := config(1+rng.IntN(50), 0, []float64{1.3, 2, 3}[rng.IntN(3)], 1+rng.IntN(10))
		cfg.Max = cfg.Start + rng.IntN(20000)
		limit := rng.IntN(cfg.Max + 100)
		f := &fake{pass: upTo(limit)}
		r, err := Search(t.Context(), cfg, f.measure)
		name := fmt.Sprintf("case %d (%+v, limit %d)", i, cfg, limit)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		sorted := slices.Sorted(slices.Values(f.measured))
		if len(f.measured) > cfg.MaxSteps || len(slices.Compact(sorted)) != len(f.measured) ||
			sorted[0] < cfg.Start || sorted[len(sorted)-1] > cfg.Max {
			t.Fatalf("%s: measured %v", name, f.measured)
		}
		if r.SafeLimit != nil && r.SafeLimit.Level > limit {
			t.Fatalf("%s: safe limit %d above the true limit", name, r.SafeLimit.Level)
		}
		if strings.HasPrefix(r.Stopped, "bracketed") {
			lo, hi := r.SafeLimit.Level, r.Bottleneck.Level
			if hi-lo > 1 && float64(hi) > float64(lo)*1.05 {
				t.Fatalf("%s: stopped at %d..%d, not adjacent nor within 5 %%", name, lo, hi)
			}
		}
	}
}

func TestSearchReturnsWhatItHasOnError(t *testing.T) {
	t.Parallel()
	f := &fake{pass: upTo(100), failAt: 3}
	r, err := Search(t.Context(), config(1, 1000, 2, 8), f.measure)
	if !errors.Is(err, sweep.ErrInterrupted) || !strings.Contains(err.Error(), "level 4") {
		t.Fatalf("err = %v, want the interruption at level 4", err)
	}
	if len(r.Levels) != 2 || r.SafeLimit == nil || r.SafeLimit.Level != 2 {
		t.Errorf("partial result %+v, want levels 1 and 2 with safe limit 2", r)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, flag string
		edit       func(*Config)
	}{
		{"start above max", "start_level", func(c *Config) { c.Start = 200 }},
		{"zero start", "start_level", func(c *Config) { c.Start = 0 }},
		{"negative max", "max_level", func(c *Config) { c.Max = -1 }},
		{"factor one", "factor", func(c *Config) { c.Factor = 1 }},
		{"zero steps", "max_steps", func(c *Config) { c.MaxSteps = 0 }},
		{"no slo", "slo", func(c *Config) { c.SLO = nil }},
		{"bad model", "model", func(c *Config) { c.Model = "users" }},
		{"levels not increasing", "levels", func(c *Config) { c.Levels = []int{10, 20, 20} }},
		{"zero level", "levels", func(c *Config) { c.Levels = []int{0, 5} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := config(1, 100, 2, 8)
			tc.edit(&cfg)
			err := cfg.Validate()
			if !errors.Is(err, sweep.ErrBadInput) || !strings.HasPrefix(err.Error(), "{find_limit."+tc.flag+"}:") {
				t.Errorf("Validate() = %v, want bad input naming find_limit.%s", err, tc.flag)
			}
		})
	}
	if err := config(1, 100, 2, 8).Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
}

func TestParseLevels(t *testing.T) {
	t.Parallel()
	if got, err := ParseLevels("10, 20,40"); err != nil || !slices.Equal(got, []int{10, 20, 40}) {
		t.Errorf("ParseLevels = %v, %v", got, err)
	}
	for _, bad := range []string{"", "10,,20", "10,5", "ten", "1.5", "-3"} {
		if _, err := ParseLevels(bad); !errors.Is(err, sweep.ErrBadInput) || !strings.HasPrefix(err.Error(), "{find_limit.levels}:") {
			t.Errorf("ParseLevels(%q) = %v, want bad input naming --levels", bad, err)
		}
	}
}

func TestConfigOf(t *testing.T) {
	t.Parallel()
	asked := sweep.FindLimit{SLO: "p99<=20ms", Start: 4, Max: 64, Factor: 2, MaxSteps: 5, DBService: "db"}
	for _, tc := range []struct {
		name  string
		model string
		load  sweep.LoadSpec
		want  Model
	}{
		{"closed load gives vus", "", sweep.LoadSpec{VUs: 8}, ModelVUs},
		{"open load gives rate", "", sweep.LoadSpec{Rate: 100}, ModelRate},
		{"model given wins", "vus", sweep.LoadSpec{Rate: 100}, ModelVUs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := asked
			f.Model = tc.model
			cfg, err := ConfigOf(f, tc.load)
			if err != nil || cfg.Model != tc.want || cfg.SLO.String() != "p99<=20ms" || cfg.Start != 4 || cfg.MaxSteps != 5 {
				t.Errorf("ConfigOf = %+v, %v; want model %s and the asked bounds", cfg, err, tc.want)
			}
		})
	}
	for flag, edit := range map[string]func(*sweep.FindLimit){
		"slo":         func(f *sweep.FindLimit) { f.SLO = "p99<5ms" },
		"model":       func(f *sweep.FindLimit) { f.Model = "users" },
		"start_level": func(f *sweep.FindLimit) { f.Start = 100 },
	} {
		f := asked
		edit(&f)
		if _, err := ConfigOf(f, sweep.LoadSpec{VUs: 1}); !errors.Is(err, sweep.ErrBadInput) || !strings.HasPrefix(err.Error(), "{find_limit."+flag+"}") {
			t.Errorf("ConfigOf with a bad %s = %v, want bad input naming it", flag, err)
		}
	}
}

func TestResultSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		pass func(int) bool
		want results.SafeLimit
	}{
		{"bracketed", upTo(37), results.SafeLimit{Model: "vus", Level: 32, FailsAt: 64, Bottleneck: BottleneckNone, SLO: "success>=99%,p99<=20ms", Steps: 7}},
		{"first level fails", upTo(0), results.SafeLimit{Model: "vus", FailsAt: 1, Bottleneck: BottleneckNone, SLO: "success>=99%,p99<=20ms", Steps: 1}},
		{"none fails", upTo(1000), results.SafeLimit{Model: "vus", Level: 64, SLO: "success>=99%,p99<=20ms", Steps: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := Search(t.Context(), config(1, 64, 2, 7), (&fake{pass: tc.pass}).measure)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Summary(); got != tc.want {
				t.Errorf("Summary = %+v, want %+v", got, tc.want)
			}
		})
	}
}
