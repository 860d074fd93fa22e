package limit

import (
	"errors"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestParseSLO(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       SLO
	}{
		{"default", DefaultSLO, SLO{{"success", 99}, {"p99", 500}}},
		{"seconds and spaces", " p95 <= 1.5s , error<=0.5% ", SLO{{"p95", 1500}, {"error", 0.5}}},
		{"every latency", "avg<=1ms,p50<=2ms,p90<=3ms,p95<=4ms,p99<=5ms", SLO{{"avg", 1}, {"p50", 2}, {"p90", 3}, {"p95", 4}, {"p99", 5}}},
		{"fractions", "success>=99.9%,p99<=0.25ms", SLO{{"success", 99.9}, {"p99", 0.25}}},
		{"zero percent", "success>=0%", SLO{{"success", 0}}},
		{"every request", "success>=100%,error<=100%", SLO{{"success", 100}, {"error", 100}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSLO(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tc.want.String() || len(got) != len(tc.want) {
				t.Errorf("ParseSLO(%q) = %s, want %s", tc.text, got, tc.want)
			}
		})
	}
}

func TestParseSLORejects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, text, want string }{
		{"empty", " ", "empty"},
		{"empty term", "p99<=5ms,,success>=99%", "empty term"},
		{"unknown metric", "p42<=5ms", "unknown metric"},
		{"no comparison", "p99 5ms", "no comparison"},
		{"no metric", "<=5ms", `unknown metric ""`},
		{"wrong way success", "success<=99%", "success takes >="},
		{"wrong way error", "error>=1%", "error takes <="},
		{"wrong way latency", "p99>=5ms", "p99 takes <="},
		{"equals", "p99=5ms", "p99 takes <="},
		{"no unit", "p99<=500", "give a unit"},
		{"minutes", "p99<=1m", "give a unit"},
		{"no percent", "success>=99", "give a percentage"},
		{"over 100", "success>=101%", "between 0 and 100"},
		{"negative", "p99<=-5ms", "number > 0"},
		{"zero latency", "p99<=0ms", "number > 0"},
		{"nan", "p99<=NaNms", "number > 0"},
		{"inf", "p99<=infs", "number > 0"},
		{"twice", "p99<=5ms,p99<=6ms", "bounded twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseSLO(tc.text)
			if !errors.Is(err, sweep.ErrBadInput) || !strings.HasPrefix(err.Error(), "{find_limit.slo}: ") {
				t.Fatalf("ParseSLO(%q) = %v, want bad input naming --slo", tc.text, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// FuzzParseSLO checks that the parser never panics, that every rejection
// is bad input naming --slo, and that an accepted SLO reads back the same
// from its flag form. The seed corpus is in testdata/fuzz/FuzzParseSLO.
func FuzzParseSLO(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		slo, err := ParseSLO(text)
		if err != nil {
			if !errors.Is(err, sweep.ErrBadInput) || !strings.HasPrefix(err.Error(), "{find_limit.slo}: ") {
				t.Fatalf("ParseSLO(%q): %v is not bad input naming --slo", text, err)
			}
			return
		}
		again, err := ParseSLO(slo.String())
		if err != nil || again.String() != slo.String() || len(again) != len(slo) {
			t.Fatalf("ParseSLO(%q) = %s, which reads back as %s, %v", text, slo, again, err)
		}
	})
}

func TestCheck(t *testing.T) {
	t.Parallel()
	slo, err := ParseSLO("success>=99%,p99<=20ms")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		level   Level
		ok      bool
		whyPart string
	}{
		{"holds", Level{Requests: 100, SuccessRate: 1, LatencyMS: results.Latency{P99: 20}}, true, ""},
		{"exactly 99 of 100", Level{Requests: 100, SuccessRate: 1 - 0.01, LatencyMS: results.Latency{P99: 1}}, true, ""},
		{"slow tail", Level{Requests: 100, SuccessRate: 1, LatencyMS: results.Latency{P99: 20.5}}, false, "p99<=20ms (got 20.50ms)"},
		{"both", Level{Requests: 100, SuccessRate: 0.9, LatencyMS: results.Latency{P99: 30}}, false, "success>=99% (got 90.00%); p99"},
		{"no requests", Level{SuccessRate: 1}, false, "no requests"},
		{"run failed", Level{Requests: 5, SuccessRate: 1, Signals: Signals{Failed: "target container was replaced"}}, false, "run failed: target"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ok, why := slo.Check(tc.level)
			if ok != tc.ok || !strings.Contains(why, tc.whyPart) {
				t.Errorf("Check = %v, %q; want %v and a reason with %q", ok, why, tc.ok, tc.whyPart)
			}
		})
	}
}
