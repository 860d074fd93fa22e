package k6

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

func readInspect(t *testing.T, name string) ScriptOptions {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var o ScriptOptions
	if err := json.Unmarshal(data, &o); err != nil {
		t.Fatal(err)
	}
	return o
}

// TestPlanControl: how sweep's load reaches a user's script, from what a
// real `k6 inspect` printed for it.
func TestPlanControl(t *testing.T) {
	t.Parallel()
	closed := results.LoadInfo{Model: "closed", VUs: 20}
	open := results.LoadInfo{Model: "open", Rate: 12.5, VUs: 13, MaxVUs: 100}
	tests := []struct {
		name       string
		inspect    string
		load       results.LoadInfo
		want       control
		overridden []string
		clash      []string // words the clash error must hold; nil: no error
	}{
		{"no options, closed", "inspect-no-options.json", closed, byFlags, nil, nil},
		{"no options, open", "inspect-no-options.json", open, byConfig, nil, nil},
		{"plain options give way to flags", "inspect-plain.json", closed, byFlags,
			[]string{"vus=3", "duration=2s", "iterations=5"}, nil},
		{"stages give way to flags", "inspect-stages.json", closed, byFlags, []string{"stages (2)"}, nil},
		{"plain options under the open model", "inspect-plain.json", open, 0, nil,
			[]string{"vus=3, duration=2s, iterations=5", "12.5 iterations/s for 10s"}},
		{"scenarios", "inspect-scenarios.json", closed, 0, nil,
			[]string{"browse: ramping-vus; buy: constant-arrival-rate, 5 iterations/s for 10s", "20 VUs for 10s"}},
		{"crud.js follows sweep's closed load", "inspect-crud-closed.json", closed, asIs, nil, nil},
		{"crud.js follows sweep's open load", "inspect-crud-open.json", open, asIs, nil, nil},
		{"crud.js inspected for another load", "inspect-crud-closed.json", results.LoadInfo{Model: "closed", VUs: 4}, 0, nil,
			[]string{"crud: constant-vus, 20 VUs for 10s", "4 VUs for 10s"}},
		{"crud.js closed scenario under the open model", "inspect-crud-closed.json", open, 0, nil, []string{"crud: constant-vus"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, overridden, err := planControl(readInspect(t, tc.inspect), tc.load, 10*time.Second)
			if tc.clash != nil {
				if !errors.Is(err, ErrClash) {
					t.Fatalf("error %v, want ErrClash", err)
				}
				for _, w := range tc.clash {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil || got != tc.want || !slices.Equal(overridden, tc.overridden) {
				t.Errorf("planControl = %v, %q, %v; want %v, %q", got, overridden, err, tc.want, tc.overridden)
			}
		})
	}
}

func TestOpenConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		load results.LoadInfo
		want string
	}{
		{results.LoadInfo{Model: "open", Rate: 20, VUs: 20, MaxVUs: 100},
			`"rate":20,"timeUnit":"1s","duration":"10s","preAllocatedVUs":20,"maxVUs":100`},
		{results.LoadInfo{Model: "open", Rate: 2.5, VUs: 3, MaxVUs: 2},
			`"rate":2500,"timeUnit":"1000s","duration":"10s","preAllocatedVUs":3,"maxVUs":3`},
	} {
		data, err := openConfig(tc.load, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Scenarios map[string]struct {
				Executor        string  `json:"executor"`
				Rate            float64 `json:"rate"`
				TimeUnit        string  `json:"timeUnit"`
				Duration        string  `json:"duration"`
				PreAllocatedVUs int     `json:"preAllocatedVUs"`
				MaxVUs          int     `json:"maxVUs"`
			} `json:"scenarios"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		s := doc.Scenarios["sweep"]
		compact, _ := json.Marshal(s)
		if s.Executor != "constant-arrival-rate" || !strings.Contains(string(compact), tc.want) {
			t.Errorf("config %s, want %s", compact, tc.want)
		}
	}
	if _, err := openConfig(results.LoadInfo{Model: "open", Rate: 0.0001}, time.Second); err == nil {
		t.Error("rate 0.0001/s: no error")
	}
}
