package report

import (
	"math"
	"strings"

	"github.com/sweep-tool/sweep/sweep"
)

// Options tune the analysis. The zero value is not useful; start from
// DefaultOptions.
type Options struct {
	// ErrorBound is the highest mean error rate (0..1) a cell may have
	// and still win.
	ErrorBound float64 `json:"error_bound"`
	// NoiseBand is the assumed relative noise (0..1) of a figure measured
	// once, when the run did not measure its noise (runNoise).
	NoiseBand float64 `json:"noise_band"`
	// PredictCPUs are CPU limits at which the USL fit predicts (each > 0).
	PredictCPUs []float64 `json:"predict_cpus,omitempty"`
	// DBService is the database's compose service, whose CPU limit the
	// pool-sizing rule of thumb reads from the records.
	DBService string `json:"db_service"`
}

// DefaultOptions returns the documented defaults: error bound 1 %, noise
// band 5 %, database service sweep.DefaultDBService (db).
func DefaultOptions() Options {
	return Options{ErrorBound: 0.01, NoiseBand: 0.05, DBService: sweep.DefaultDBService}
}

func (o Options) validate() error {
	if o.ErrorBound < 0 || o.ErrorBound > 1 {
		return sweep.BadInput("error_bound", "%v is outside 0..1", o.ErrorBound)
	}
	if o.NoiseBand < 0 || o.NoiseBand >= 1 {
		return sweep.BadInput("noise_band", "%v is outside 0 up to below 1", o.NoiseBand)
	}
	for _, n := range o.PredictCPUs {
		if !(n > 0) || math.IsInf(n, 0) {
			return sweep.BadInput("predict_cpus", "CPU limit %v to predict at is not a number > 0", n)
		}
	}
	return nil
}

// Metric is a figure a matrix can show.
type Metric string

// The metrics a matrix can show. CPU and Sessions exist only when the
// samplers ran, Limit only when the cells searched their safe limit (run
// --find-limit).
const (
	MetricRPS      Metric = "rps"
	MetricP99      Metric = "p99"
	MetricErrors   Metric = "errors"
	MetricCPU      Metric = "cpu"
	MetricSessions Metric = "sessions"
	MetricLimit    Metric = "limit"
)

// Metrics lists every metric in display order.
var Metrics = []Metric{MetricRPS, MetricP99, MetricErrors, MetricCPU, MetricSessions, MetricLimit}

// ParseMetric reads a metric name (rps, p99, errors, cpu, sessions, limit).
func ParseMetric(s string) (Metric, error) {
	for _, m := range Metrics {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	return "", sweep.BadInput("metric", "unknown metric %q (want one of %s)", s, metricNames())
}

func metricNames() string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Title is the metric's column heading.
func (m Metric) Title() string {
	switch m {
	case MetricRPS:
		return "RPS"
	case MetricP99:
		return "P99 ms"
	case MetricErrors:
		return "error %"
	case MetricCPU:
		return "target CPU % of limit"
	case MetricLimit:
		return "safe limit"
	default:
		return "peak DB sessions"
	}
}

// higherIsBetter says which way "best" points for m.
func (m Metric) higherIsBetter() bool { return m == MetricRPS || m == MetricLimit }
