package halving

import (
	"errors"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

const s = time.Second

func TestDefaultPlan(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		w, d time.Duration
		want []Round
	}{
		{"the study's grid", 30 * s, 5 * time.Minute, []Round{
			{Warmup: 5 * s, Duration: 5 * s, Keep: screenKeep},
			{Warmup: 10 * s, Duration: 300 * s, MinDuration: 60 * s}}},
		{"the bench's grid", 5 * s, 45 * s, []Round{
			{Warmup: 2 * s, Duration: 2 * s, Keep: screenKeep},
			{Warmup: 5 * s, Duration: 45 * s, MinDuration: 45 * s}}},
		{"a short grid", 3 * s, 20 * s, []Round{
			{Warmup: 2 * s, Duration: 2 * s, Keep: screenKeep},
			{Warmup: 3 * s, Duration: 20 * s, MinDuration: 20 * s}}},
		{"a grid shorter than a screen", 3 * s, 2 * s, []Round{
			{Warmup: 2 * s, Duration: 2 * s, Keep: screenKeep},
			{Warmup: 3 * s, Duration: 2 * s, MinDuration: 2 * s}}},
	}
	for _, c := range cases {
		p := DefaultPlan(c.w, c.d)
		if len(p.Rounds) != len(c.want) {
			t.Fatalf("%s: %+v, want %+v", c.name, p, c.want)
		}
		for i := range c.want {
			if p.Rounds[i] != c.want[i] {
				t.Errorf("%s round %d: %+v, want %+v", c.name, i+1, p.Rounds[i], c.want[i])
			}
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestPlanValidate(t *testing.T) {
	t.Parallel()
	final := Round{Warmup: 10 * s, Duration: time.Minute, MinDuration: 30 * s}
	first := Round{Warmup: 5 * s, Duration: 5 * s, Keep: 0.3}
	cases := map[string]Plan{
		"one round":           {Rounds: []Round{final}},
		"keep 0":              {Rounds: []Round{{Duration: 5 * s}, final}},
		"keep above 1":        {Rounds: []Round{{Duration: 5 * s, Keep: 1.5}, final}},
		"a 1 s round":         {Rounds: []Round{{Duration: s, Keep: 0.5}, final}},
		"minimum above max":   {Rounds: []Round{first, {Duration: 30 * s, MinDuration: time.Minute}}},
		"negative warm-up":    {Rounds: []Round{{Warmup: -s, Duration: 5 * s, Keep: 0.5}, final}},
		"zero final duration": {Rounds: []Round{first, {}}},
	}
	for name, p := range cases {
		if err := p.Validate(); !errors.Is(err, sweep.ErrBadInput) {
			t.Errorf("%s: %v, want ErrBadInput", name, err)
		}
	}
}

// TestCheckSpec: a halving spec whose default plan screens for less than
// 2 s is bad input of its duration, before anything starts; a grid spec
// of any duration is not halving's to refuse.
func TestCheckSpec(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		strategy string
		d        time.Duration
		refused  bool
	}{
		{"halving of 1 s", sweep.StrategyHalving, s, true},
		{"halving of 1.9 s", sweep.StrategyHalving, 1900 * time.Millisecond, true},
		{"halving of 2 s", sweep.StrategyHalving, 2 * s, false},
		{"halving of 5 min", sweep.StrategyHalving, 5 * time.Minute, false},
		{"grid of 1 s", sweep.StrategyGrid, s, false},
		{"default strategy of 1 s", "", s, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckSpec(sweep.Spec{Strategy: tc.strategy, Warmup: sweep.Duration(s), Duration: sweep.Duration(tc.d)})
			var b *sweep.BadInputError
			if refused := errors.As(err, &b) && b.Field == "duration"; refused != tc.refused || (err != nil && !refused) {
				t.Errorf("CheckSpec: %v, want refused naming {duration}: %v", err, tc.refused)
			}
		})
	}
}

// TestWorstTimes prices the study's grid: 80 cells of 4 s overhead, 30 s
// warm-up and 5 min measure, against the default plan with every cell
// surviving and every final running to its longest, the grid's 5 min.
func TestWorstTimes(t *testing.T) {
	t.Parallel()
	p := DefaultPlan(30*s, 5*time.Minute)
	got := WorstTimes(80, 1, 4*s, 30*s, 5*time.Minute, p)
	want := Times{Grid: 80 * 334 * s, Halving: 80 * (14 + 314) * s,
		PerRound: []time.Duration{80 * 14 * s, 80 * 314 * s}}
	if got.Grid != want.Grid || got.Halving != want.Halving || len(got.PerRound) != 2 {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want.PerRound {
		if got.PerRound[i] != want.PerRound[i] {
			t.Errorf("round %d: %s, want %s", i+1, got.PerRound[i], want.PerRound[i])
		}
	}
	if r := WorstTimes(80, 3, 4*s, 30*s, 5*time.Minute, p); r.Grid != 3*want.Grid || r.Halving != want.PerRound[0]+3*want.PerRound[1] {
		t.Errorf("3 repetitions: %+v; the grid triples, halving's finals do", r)
	}
}
