package sweep

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
)

func TestCheckApplied(t *testing.T) {
	t.Parallel()
	asked := TargetConfig{CPUs: 1.5, Memory: "256m", Env: map[string]string{"W": "3", "P": "6"}}
	for _, tc := range []struct {
		name string
		cfg  TargetConfig
		got  results.Applied
		want string // "" when the target runs as asked
	}{
		{"as asked", asked,
			results.Applied{CPUs: 1.5, MemoryBytes: 256 << 20, Env: map[string]string{"W": "3", "P": "6"}}, ""},
		{"cpus within 1e-6", asked,
			results.Applied{CPUs: 1.5000001, MemoryBytes: 256 << 20, Env: map[string]string{"W": "3", "P": "6"}}, ""},
		{"no memory asked, any reported", TargetConfig{CPUs: 1, Env: map[string]string{}},
			results.Applied{CPUs: 1, MemoryBytes: 1 << 30}, ""},
		{"memory one byte off", asked,
			results.Applied{CPUs: 1.5, MemoryBytes: 256<<20 + 1, Env: map[string]string{"W": "3", "P": "6"}},
			"target runs with memory 268435457 bytes, asked 256m"},
		{"memory limit missing", asked,
			results.Applied{CPUs: 1.5, Env: map[string]string{"W": "3", "P": "6"}},
			"target runs with memory 0 bytes, asked 256m"},
		{"cpus and env off, sorted", asked,
			results.Applied{CPUs: 2, MemoryBytes: 256 << 20, Env: map[string]string{"W": "3", "P": "4"}},
			`target runs with P="4", asked "6", cpus 2, asked 1.5`},
		{"env missing", asked,
			results.Applied{CPUs: 1.5, MemoryBytes: 256 << 20, Env: map[string]string{"P": "6"}},
			`target runs with W="", asked "3"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := ""
			if err := checkApplied(tc.cfg, tc.got, []string{"W", "P"}); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("checkApplied = %q, want %q", got, tc.want)
			}
		})
	}
}
