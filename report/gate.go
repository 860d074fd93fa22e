package report

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// Gate is one --fail-on limit: the change of Metric from run A to run B,
// in percent of A (for errors: in percentage points), beyond which the
// comparison fails. A negative Limit trips on a drop below it (rps:-5%),
// a positive one on a rise above it (p99:+10%).
type Gate struct {
	Metric Metric
	Limit  float64
}

func (g Gate) String() string { return fmt.Sprintf("%s:%+g%%", g.Metric, g.Limit) }

// trips reports whether a change of delta crosses the gate.
func (g Gate) trips(delta float64) bool {
	if g.Limit < 0 {
		return delta < g.Limit
	}
	return delta > g.Limit
}

// ParseGates reads a --fail-on list such as "rps:-5%,p99:+10%". Metrics are
// rps, p99 and errors; the limit is a percent with its sign
// (sweep.ParseChange). Errors are bad input of {fail_on}.
func ParseGates(s string) ([]Gate, error) {
	var gates []Gate
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, limit, ok := strings.Cut(part, ":")
		if !ok {
			return nil, sweep.BadInput("fail_on", "gate %q: want metric:±N%%", part)
		}
		m, err := ParseMetric(strings.TrimSpace(name))
		if err != nil || !comparable(m) {
			return nil, sweep.BadInput("fail_on", "gate %q: metric must be rps, p99 or errors", part)
		}
		limit = strings.TrimSpace(limit)
		if !strings.HasPrefix(limit, "+") && !strings.HasPrefix(limit, "-") {
			return nil, sweep.BadInput("fail_on", "gate %q: the limit needs a sign (+ for a rise, - for a drop)", part)
		}
		v, err := sweep.ParseChange("fail_on", limit)
		if b := (*sweep.BadInputError)(nil); errors.As(err, &b) {
			return nil, sweep.BadInput("fail_on", "gate %q: %s", part, b.Msg)
		}
		if v == 0 {
			return nil, sweep.BadInput("fail_on", "gate %q: limit %q is not a non-zero number", part, limit)
		}
		gates = append(gates, Gate{Metric: m, Limit: v})
	}
	if len(gates) == 0 {
		return nil, sweep.BadInput("fail_on", "is an empty list; give gates such as rps:-5%%,p99:+10%%")
	}
	return gates, nil
}

// compareMetrics are the metrics Compare reports.
var compareMetrics = []Metric{MetricRPS, MetricP99, MetricErrors}

func comparable(m Metric) bool {
	for _, c := range compareMetrics {
		if c == m {
			return true
		}
	}
	return false
}
