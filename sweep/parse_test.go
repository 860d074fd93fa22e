package sweep

import (
	"reflect"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestParseLoad pins what each --load text becomes and the bounds of a
// load value (above 0, at most 10 million).
func TestParseLoad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want LoadSpec
		bad  bool
	}{
		{text: "vus=50", want: LoadSpec{VUs: 50}},
		{text: " vus = 7 ", want: LoadSpec{VUs: 7}},
		{text: "vus-per-web=2.5", want: LoadSpec{VUsPerWeb: 2.5}},
		{text: "rate=120.5", want: LoadSpec{Rate: 120.5}},
		{text: "vus=10000000", want: LoadSpec{VUs: 10000000}},
		{text: "vus=10000001", bad: true},
		{text: "vus=0", bad: true},
		{text: "rate=-1", bad: true},
		{text: "rate=NaN", bad: true},
		{text: "vus=2.5", bad: true},
		{text: "users=5", bad: true},
		{text: "vus", bad: true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLoad(tc.text)
			if tc.bad {
				if badField(err) != "load" {
					t.Errorf("ParseLoad(%q) = %+v, %v; want bad input in load", tc.text, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ParseLoad(%q) = %+v, %v; want %+v", tc.text, got, err, tc.want)
			}
		})
	}
}

// TestLoadInfo pins the recorded model: an open model pre-allocates a
// tenth of its rate in VUs (at least 1, at most max VUs), and max VUs
// default to max(100, rate).
func TestLoadInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		spec LoadSpec
		want results.LoadInfo
	}{
		{"closed", LoadSpec{VUs: 8}, results.LoadInfo{Model: "closed", VUs: 8}},
		{"vus per web", LoadSpec{VUsPerWeb: 2}, results.LoadInfo{Model: "closed", VUsPerWeb: 2}},
		{"open, slow", LoadSpec{Rate: 5}, results.LoadInfo{Model: "open", Rate: 5, VUs: 5, MaxVUs: 100}},
		{"open, light", LoadSpec{Rate: 20}, results.LoadInfo{Model: "open", Rate: 20, VUs: 20, MaxVUs: 100}},
		{"open, fractional", LoadSpec{Rate: 0.5}, results.LoadInfo{Model: "open", Rate: 0.5, VUs: 1, MaxVUs: 100}},
		{"open", LoadSpec{Rate: 250}, results.LoadInfo{Model: "open", Rate: 250, VUs: 100, MaxVUs: 250}},
		{"open, max vus given", LoadSpec{Rate: 250, MaxVUs: 10}, results.LoadInfo{Model: "open", Rate: 250, VUs: 10, MaxVUs: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.spec.Info(); got != tc.want {
				t.Errorf("Info() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseVariant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want Variant
		bad  bool
	}{
		{text: "go=go.yaml", want: Variant{Name: "go", Files: []string{"go.yaml"}}},
		{text: "pg-bouncer=a.yaml+b.yaml", want: Variant{Name: "pg-bouncer", Files: []string{"a.yaml", "b.yaml"}}},
		{text: "go=", bad: true},
		{text: "go", bad: true},
		{text: "1go=x.yaml", bad: true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			got, err := ParseVariant(tc.text)
			if (err != nil) != tc.bad || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseVariant(%q) = %+v, %v; want %+v (bad input %v)", tc.text, got, err, tc.want, tc.bad)
			}
		})
	}
}

func TestParseMemory(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text  string
		want  string
		bytes int64
		bad   bool
	}{
		{text: "6m", want: "6m", bytes: 6 << 20},
		{text: " 1G ", want: "1g", bytes: 1 << 30},
		{text: "1.5g", want: "1.5g", bytes: 3 << 29},
		{text: "8192k", want: "8192k", bytes: 8 << 20},
		{text: "6291456", want: "6291456", bytes: 6 << 20},
		{text: "6291456b", want: "6291456b", bytes: 6 << 20},
		{text: "6291455", bad: true},
		{text: "5.9m", bad: true},
		{text: "1t", bad: true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			got, err := ParseMemory(tc.text)
			if (err != nil) != tc.bad || got != tc.want {
				t.Fatalf("ParseMemory(%q) = %q, %v; want %q (bad input %v)", tc.text, got, err, tc.want, tc.bad)
			}
			if tc.bad {
				return
			}
			if b, err := MemoryBytes(got); err != nil || b != tc.bytes {
				t.Errorf("MemoryBytes(%q) = %d, %v; want %d", got, b, err, tc.bytes)
			}
		})
	}
}

func TestParseLoadLevels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want []LoadSpec
		bad  bool
	}{
		{text: "vus=10, 20", want: []LoadSpec{{VUs: 10}, {VUs: 20}}},
		{text: "rate=0.5,1,200", want: []LoadSpec{{Rate: 0.5}, {Rate: 1}, {Rate: 200}}},
		{text: "vus-per-web=1,2", want: []LoadSpec{{VUsPerWeb: 1}, {VUsPerWeb: 2}}},
		{text: "vus=10,10", bad: true},
		{text: "vus-per-web=2,1", bad: true},
		{text: "rate=2,1", bad: true},
		{text: "vus=10,x", bad: true},
		{text: "vus", bad: true},
	} {
		t.Run(tc.text, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLoadLevels(tc.text)
			if (err != nil) != tc.bad || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseLoadLevels(%q) = %+v, %v; want %+v (bad input %v)", tc.text, got, err, tc.want, tc.bad)
			}
		})
	}
}
