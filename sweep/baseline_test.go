package sweep

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestParseBaseline(t *testing.T) {
	t.Parallel()
	good := map[string]Baseline{
		"web=8,pool=20":    {8, 20},
		" pool=3 , web=1 ": {1, 3},
	}
	for text, want := range good {
		b, err := ParseBaseline(text)
		if err != nil || *b != want {
			t.Errorf("%q: %+v %v, want %+v", text, b, err, want)
		}
		if again, _ := ParseBaseline(b.String()); *again != want {
			t.Errorf("%q: String %q does not read back", text, b.String())
		}
	}
	for _, text := range []string{"", "web=8", "web=8,pool=0", "web=8,pool=x", "web=8,pool=2,web=3", "threads=8,pool=2", "web=1.5,pool=2"} {
		_, err := ParseBaseline(text)
		var bad *BadInputError
		if !errors.As(err, &bad) || bad.Field != "baseline" {
			t.Errorf("%q: %v, want bad input naming baseline", text, err)
		}
	}
}

// TestBaselineCells: one baseline cell per CPU limit after that limit's
// grid cells, with a stable id apart from a grid cell of the same values,
// no multipliers, marked in its record.
func TestBaselineCells(t *testing.T) {
	t.Parallel()
	spec := Spec{CPUs: []float64{1, 2, 1}, WebMult: []float64{1}, DBMult: []float64{2}, Baseline: &Baseline{1, 2}, Load: LoadSpec{VUs: 3}}
	var ids []string
	for _, c := range spec.Cells() {
		ids = append(ids, c.ID)
		info := c.Info()
		if info.Baseline != c.Baseline || (c.Baseline && (len(info.Mults) != 0 || info.WebMult != 0)) {
			t.Errorf("%s: info %+v", c.ID, info)
		}
	}
	want := []string{"cpu_1__web_1__db_2", "cpu_1__web_1__db_2__baseline", "cpu_2__web_2__db_4", "cpu_2__web_1__db_2__baseline"}
	if !slices.Equal(ids, want) {
		t.Errorf("cells %q, want %q", ids, want)
	}
	c, err := spec.FindCell("cpu_2__web_1__db_2__baseline")
	if err != nil || !c.Baseline || c.WebThreads != 1 || c.DBPool != 2 {
		t.Errorf("FindCell: %+v %v", c, err)
	}
	// rerun finds it in the spec a run saved.
	saved, _ := json.Marshal(spec.Redacted())
	if c, err := FindSavedCell(results.Meta{Spec: saved}, "cpu_1__web_1__db_2__baseline"); err != nil || !c.Baseline {
		t.Errorf("FindSavedCell: %+v %v", c, err)
	}
}

// TestBaselineIsSpec: a baseline added, removed or changed is a spec
// change a resume refuses.
func TestBaselineIsSpec(t *testing.T) {
	t.Parallel()
	spec := Spec{CPUs: []float64{1}, WebMult: []float64{1}, DBMult: []float64{2}, Baseline: &Baseline{4, 8}}
	saved, _ := json.Marshal(spec.Redacted())
	if diff, err := DiffSpecs(saved, false, spec); err != nil || len(diff) != 0 {
		t.Fatalf("same spec: %q %v", diff, err)
	}
	for _, b := range []*Baseline{nil, {4, 9}} {
		spec.Baseline = b
		diff, err := DiffSpecs(saved, false, spec)
		if err != nil || len(diff) != 1 || !strings.HasPrefix(diff[0], "baseline (was {\"db_pool\":8,\"web_threads\":4}") {
			t.Errorf("baseline %v: diff %q %v", b, diff, err)
		}
	}
}
