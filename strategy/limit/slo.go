package limit

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// DefaultSLO is the objective of the infrastructure study: nearly every
// request succeeds and the tail stays bounded.
const DefaultSLO = "success>=99%,p99<=500ms"

// Term is one condition of an SLO.
type Term struct {
	// Metric is success, error, avg, p50, p90, p95 or p99.
	Metric string
	// Bound is a percentage (0..100) for success and error, milliseconds
	// for the latency metrics.
	Bound float64
}

// SLO is a service-level objective: every term must hold at a level.
type SLO []Term

// latencyMetrics are the latency terms an SLO can bound.
var latencyMetrics = []string{"avg", "p50", "p90", "p95", "p99"}

// ParseSLO parses --slo: comma-separated terms success>=X%, error<=X%,
// and avg|p50|p90|p95|p99<=N with a unit ms or s. Anything else is a
// BadInput naming --slo.
func ParseSLO(text string) (SLO, error) {
	if strings.TrimSpace(text) == "" {
		return nil, sweep.BadInput("find_limit.slo", "empty; give terms like %s", DefaultSLO)
	}
	var slo SLO
	seen := map[string]bool{}
	for _, raw := range strings.Split(text, ",") {
		t, err := parseTerm(strings.TrimSpace(raw))
		if err != nil {
			return nil, sweep.BadInput("find_limit.slo", "term %q: %v", strings.TrimSpace(raw), err)
		}
		if seen[t.Metric] {
			return nil, sweep.BadInput("find_limit.slo", "%s is bounded twice in %q; keep one term per metric", t.Metric, text)
		}
		seen[t.Metric] = true
		slo = append(slo, t)
	}
	return slo, nil
}

func parseTerm(s string) (Term, error) {
	if s == "" {
		return Term{}, fmt.Errorf("empty term; remove the extra comma")
	}
	i := strings.IndexAny(s, "<>=")
	if i < 0 {
		return Term{}, fmt.Errorf("no comparison; write e.g. p99<=500ms or success>=99%%")
	}
	metric, rest := strings.TrimSpace(s[:i]), s[i:]
	op := rest[:min(2, len(rest))]
	value := strings.TrimSpace(rest[len(op):])
	switch {
	case metric == "success" || metric == "error":
		return percentTerm(metric, op, value)
	case isLatency(metric):
		return latencyTerm(metric, op, value)
	}
	return Term{}, fmt.Errorf("unknown metric %q; use success, error, avg, p50, p90, p95 or p99", metric)
}

func isLatency(metric string) bool {
	for _, m := range latencyMetrics {
		if m == metric {
			return true
		}
	}
	return false
}

func percentTerm(metric, op, value string) (Term, error) {
	want := map[string]string{"success": ">=", "error": "<="}[metric]
	if op != want {
		return Term{}, fmt.Errorf("%s takes %s, e.g. %s%s1%%", metric, want, metric, want)
	}
	num, ok := strings.CutSuffix(value, "%")
	if !ok {
		return Term{}, fmt.Errorf("%q: give a percentage, e.g. %s%s99%%", value, metric, want)
	}
	v, err := number(num)
	if err != nil || v > 100 {
		return Term{}, fmt.Errorf("%q: the percentage must be between 0 and 100", value)
	}
	return Term{Metric: metric, Bound: v}, nil
}

func latencyTerm(metric, op, value string) (Term, error) {
	if op != "<=" {
		return Term{}, fmt.Errorf("%s takes <=, e.g. %s<=500ms", metric, metric)
	}
	scale, num := 1.0, ""
	if n, ok := strings.CutSuffix(value, "ms"); ok {
		num = n
	} else if n, ok := strings.CutSuffix(value, "s"); ok {
		scale, num = 1000, n
	} else {
		return Term{}, fmt.Errorf("%q: give a unit, ms or s, e.g. %s<=500ms", value, metric)
	}
	v, err := number(num)
	if err != nil || v == 0 {
		return Term{}, fmt.Errorf("%q: the bound must be a number > 0", value)
	}
	return Term{Metric: metric, Bound: v * scale}, nil
}

// number parses a finite number >= 0 (no sign, no exponent tricks that
// ParseFloat accepts such as "inf").
func number(s string) (float64, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || strings.ContainsAny(s, "+-") {
		return 0, fmt.Errorf("%q is not a number >= 0", s)
	}
	return v, nil
}

// String writes the SLO back in flag form.
func (s SLO) String() string {
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// String writes the term in flag form.
func (t Term) String() string {
	switch t.Metric {
	case "success":
		return "success>=" + sweep.FormatNumber(t.Bound) + "%"
	case "error":
		return "error<=" + sweep.FormatNumber(t.Bound) + "%"
	}
	return t.Metric + "<=" + sweep.FormatNumber(t.Bound) + "ms"
}

// MarshalJSON records the SLO in its flag form.
func (s SLO) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (s *SLO) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err != nil {
		return err
	}
	parsed, err := ParseSLO(text)
	*s = parsed
	return err
}
