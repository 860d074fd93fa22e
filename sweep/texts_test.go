package sweep

import (
	"testing"
)

// TestTextsApply: the text forms land in their fields, max VUs survives
// the load model, and the extra axes replace the ones the spec had.
func TestTextsApply(t *testing.T) {
	t.Parallel()
	s := Spec{Load: LoadSpec{MaxVUs: 40}, Memory: []string{"1g"}}
	err := Texts{Load: "rate=20", Strategy: "halving", Baseline: "web=4,pool=8", LoadLevels: "vus=1,2",
		Axes: []string{"A=x,y"}, Variants: []string{"v=a.yml+b.yml"}}.Apply(&s)
	if err != nil || s.Load.Rate != 20 || s.Load.MaxVUs != 40 || s.Strategy != StrategyHalving || s.Baseline == nil ||
		len(s.LoadLevels) != 2 || len(s.Axes) != 1 || len(s.Variants) != 1 || s.Memory != nil || s.Script != nil {
		t.Errorf("Apply = %v: %+v", err, s)
	}
	s.Load.MaxVUs = -1
	if err := (Texts{Load: "vus=1"}).Apply(&s); badField(err) != "load.max_vus" {
		t.Errorf("negative max VUs: %v, want bad input of load.max_vus", err)
	}
	for _, tc := range []struct {
		text  Texts
		field string
	}{
		{Texts{Load: "users=3"}, "load"},
		{Texts{Load: "vus=1", Strategy: "bayes"}, "strategy"},
		{Texts{Load: "vus=1", Script: "/nonexistent.js"}, "script"},
		{Texts{Load: "vus=1", Memory: []string{"1k"}}, "memory"},
	} {
		if err := tc.text.Apply(&Spec{}); badField(err) != tc.field {
			t.Errorf("%+v: %v, want bad input of %s", tc.text, err, tc.field)
		}
	}
}

// TestNumbersReplaceTheList: a Set replaces the list it had (a second
// value after a config file's means that value alone), and a bad list
// is bad input of the value's field.
func TestNumbersReplaceTheList(t *testing.T) {
	t.Parallel()
	vals := []float64{1, 2}
	n := Numbers{Field: "web_mult", Vals: &vals}
	if err := n.Set("1.5,3"); err != nil || n.String() != "1.5,3" {
		t.Errorf("Set(1.5,3) = %v, list %s", err, n.String())
	}
	if err := n.Set("0"); badField(err) != "web_mult" || n.String() != "1.5,3" {
		t.Errorf("Set(0) = %v, list %s; want bad input of web_mult, the list kept", err, n.String())
	}
	if (Numbers{}).String() != "" || (Share{}).String() != "" || (Repeat{}).String() != "" {
		t.Error("a zero value's String is not empty")
	}
}
