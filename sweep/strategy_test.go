package sweep

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseStrategy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"grid": "", "": "", "halving": StrategyHalving} {
		if got, err := ParseStrategy("strategy", in); got != want || err != nil {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseStrategy("strategy", "bayes"); !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "{strategy}") {
		t.Errorf("bayes: %v, want bad input naming the strategy", err)
	}
	s := testSpec()
	s.Strategy = "bayes"
	if err := s.Validate(); !errors.Is(err, ErrBadInput) {
		t.Errorf("spec with strategy bayes: %v", err)
	}
}

// TestGridSpecUnchanged: a grid spec's JSON (sweep.json) has no strategy
// key, so grid runs write what they wrote before and resume them.
func TestGridSpecUnchanged(t *testing.T) {
	t.Parallel()
	b, _ := json.Marshal(testSpec())
	if strings.Contains(string(b), "strategy") {
		t.Errorf("grid spec mentions a strategy: %s", b)
	}
	h := testSpec()
	h.Strategy = StrategyHalving
	diff, err := DiffSpecs(b, false, h)
	if err != nil || len(diff) != 1 || !strings.HasPrefix(diff[0], "strategy") {
		t.Errorf("resuming a grid run by halving: diff %v, %v; want the strategy named", diff, err)
	}
}

func TestJobDir(t *testing.T) {
	t.Parallel()
	c := testSpec().Cells()[0]
	f := &Fidelity{Round: 2}
	cases := map[string]Job{
		filepath.Join("run", "cells", c.ID, "r3"):     {Cell: c, Rep: 3},
		filepath.Join("run", "cells", c.ID, "r1"):     {Cell: c, Rep: 1, Fidelity: f},
		filepath.Join("run", "cells", c.ID, "round2"): {Cell: c, Rep: 1, Fidelity: f, Screening: true},
	}
	for want, j := range cases {
		if got := j.Dir("run"); got != want {
			t.Errorf("%+v: %s, want %s", j, got, want)
		}
	}
}
