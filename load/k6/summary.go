package k6

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/results"
)

// metric is one entry of a summary's metrics, in one shape for both
// sources: the flat --summary-export entry and handleSummary's
// {type, values, thresholds} entry.
type metric struct {
	values map[string]float64
	// crossed maps each threshold expression to whether it failed.
	crossed map[string]bool
}

// summary is the legacy summary's top level. The opt-in new format has
// "version" and "results" instead of "metrics".
type summary struct {
	Metrics map[string]json.RawMessage `json:"metrics"`
	Version json.RawMessage            `json:"version"`
	Results json.RawMessage            `json:"results"`
}

// alwaysTrue are the threshold expressions crud.js puts on op sub-metrics
// only so that they reach the export; they never count as crossed.
var alwaysTrue = []string{"max>=0", "count>=0", "rate>=0"}

// connectErrors is the counter crud.js adds a connection-level failure
// to (tagged op and kind); a user's script may add to it too.
const connectErrors = "connect_errors"

// ParseSummary reads a k6 summary into a Measurement. It takes the file
// k6's --summary-export writes, and also the data handleSummary receives
// (threshold polarity and the rate key differ; both are handled). The
// opt-in new machine-readable summary is refused with ErrNewSummary, a
// summary without p(99) with ErrNoP99.
//
// k6 counts an attempt that never got an HTTP answer (connection refused,
// DNS, reset: status 0) in http_reqs and as failed in http_req_failed.
// Those the script counted in connect_errors are subtracted from both, so
// Requests, RPS and ErrorRate hold only requests that reached the target,
// as the built-in driver's do; k6's latency trend cannot be split and
// still holds them (a refused connect lasts well under a millisecond).
func ParseSummary(data []byte) (results.Measurement, error) {
	metrics, err := decodeMetrics(data)
	if err != nil {
		return results.Measurement{}, err
	}
	if _, ok := metrics["http_reqs"]; !ok {
		return results.Measurement{}, fmt.Errorf("%w: no http_reqs metric (did the script make requests?)", ErrNotSummary)
	}
	m := results.Measurement{DurationS: runSeconds(metrics)}
	m.Requests, m.RPS, m.ErrorRate, m.ConnectErrors = answered(metrics, "", m.DurationS)
	if m.LatencyMS, err = latency(metrics, "http_req_duration"); err != nil {
		return results.Measurement{}, err
	}
	m.ConnectErrorKinds = connectKinds(metrics)
	m.BytesSent = int64(metrics["data_sent"].values["count"])
	m.VUsMax = int(metrics["vus_max"].values["max"])
	if it, err := latency(metrics, "iteration_duration"); err == nil {
		m.IterationMS = &it
	}
	if checks, ok := metrics["checks"]; ok {
		rate := checks.values["value"]
		m.ChecksPassRate = &rate
	}
	m.Iterations = int64(metrics["iterations"].values["count"])
	m.IterationsPerS = metrics["iterations"].values["rate"]
	m.DroppedIterations = int64(metrics["dropped_iterations"].values["count"])
	if m.Ops, err = ops(metrics); err != nil {
		return results.Measurement{}, err
	}
	m.ThresholdsFailed = crossed(metrics)
	m.Breakdown = breakdown(metrics)
	return m, nil
}

// breakdown reads k6's per-phase timings (connecting, TLS handshaking,
// sending, waiting for the first byte, receiving); nil when the export
// lacks any of them. k6 does not count new connections.
func breakdown(metrics map[string]metric) *results.Breakdown {
	var b results.Breakdown
	for name, into := range map[string]*results.Latency{
		"http_req_connecting": &b.Connect, "http_req_tls_handshaking": &b.TLS, "http_req_sending": &b.Sending,
		"http_req_waiting": &b.Waiting, "http_req_receiving": &b.Receiving,
	} {
		l, err := latency(metrics, name)
		if err != nil {
			return nil
		}
		*into = l
	}
	return &b
}

// decodeMetrics finds the metrics of a legacy summary or handleSummary
// data and brings each into the flat export shape.
func decodeMetrics(data []byte) (map[string]metric, error) {
	var s summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSummary, err)
	}
	if s.Metrics == nil {
		if s.Version != nil || s.Results != nil {
			return nil, ErrNewSummary
		}
		return nil, fmt.Errorf("%w: no metrics key", ErrNotSummary)
	}
	out := make(map[string]metric, len(s.Metrics))
	for name, raw := range s.Metrics {
		m, err := decodeMetric(raw)
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", name, err)
		}
		out[name] = m
	}
	return out, nil
}

// decodeMetric reads one metric entry. In the export, numbers sit at the
// top, a rate's fraction is "value", and a threshold's true means crossed.
// In handleSummary data they sit under "values", the fraction is "rate",
// and thresholds are {"ok": bool} with ok meaning passed.
func decodeMetric(raw json.RawMessage) (metric, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return metric{}, err
	}
	if values, ok := fields["values"]; ok {
		return decodeHandleSummaryMetric(fields, values)
	}
	m := metric{values: map[string]float64{}, crossed: map[string]bool{}}
	for key, v := range fields {
		if key == "thresholds" {
			if err := json.Unmarshal(v, &m.crossed); err != nil {
				return metric{}, fmt.Errorf("thresholds: %w", err)
			}
			continue
		}
		var f float64
		if err := json.Unmarshal(v, &f); err != nil {
			return metric{}, fmt.Errorf("%s: %w", key, err)
		}
		m.values[key] = f
	}
	return m, nil
}

func decodeHandleSummaryMetric(fields map[string]json.RawMessage, values json.RawMessage) (metric, error) {
	var hs struct {
		Type       string `json:"type"`
		Thresholds map[string]struct {
			OK bool `json:"ok"`
		} `json:"thresholds"`
	}
	m := metric{crossed: map[string]bool{}}
	if err := json.Unmarshal(values, &m.values); err != nil {
		return metric{}, fmt.Errorf("values: %w", err)
	}
	if err := remarshal(fields, &hs); err != nil {
		return metric{}, err
	}
	if rate, ok := m.values["rate"]; ok && hs.Type == "rate" {
		m.values["value"] = rate
		delete(m.values, "rate")
	}
	for expr, t := range hs.Thresholds {
		m.crossed[expr] = !t.OK
	}
	return m, nil
}

func remarshal(fields map[string]json.RawMessage, v any) error {
	data, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// latency reads a trend metric in milliseconds; p(50) falls back to med.
func latency(metrics map[string]metric, name string) (results.Latency, error) {
	m, ok := metrics[name]
	if !ok {
		return results.Latency{}, fmt.Errorf("%w: no %s metric", ErrNotSummary, name)
	}
	v := m.values
	p99, ok := v["p(99)"]
	if !ok {
		return results.Latency{}, fmt.Errorf("%s: %w", name, ErrNoP99)
	}
	p50, ok := v["p(50)"]
	if !ok {
		p50 = v["med"]
	}
	return results.Latency{
		Avg: v["avg"], Min: v["min"], Max: v["max"],
		P50: p50, P75: v["p(75)"], P90: v["p(90)"], P95: v["p(95)"], P99: p99,
	}, nil
}

// ops reads the {op:<op>} sub-metrics that crud.js's thresholds put into
// the summary. An op none of whose requests got an answer is left out, as
// the built-in driver does: k6 exports every sub-metric a threshold names,
// an op that never ran (reads after failed creates) with count 0 and zero
// latencies.
func ops(metrics map[string]metric) (map[string]results.OpStats, error) {
	var out map[string]results.OpStats
	seconds := runSeconds(metrics)
	for _, op := range results.Operations {
		tag := "{op:" + op + "}"
		var s results.OpStats
		if s.Requests, s.RPS, s.ErrorRate, _ = answered(metrics, tag, seconds); s.Requests == 0 {
			continue
		}
		var err error
		if s.LatencyMS, err = latency(metrics, "http_req_duration"+tag); err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]results.OpStats{}
		}
		out[op] = s
	}
	return out, nil
}

// crossed lists the crossed thresholds as "metric: expression", sorted,
// leaving out crud.js's always-true op thresholds.
func crossed(metrics map[string]metric) []string {
	var out []string
	for name, m := range metrics {
		for expr, failed := range m.crossed {
			if !failed || (strings.Contains(name, "{op:") && slices.Contains(alwaysTrue, expr)) {
				continue
			}
			out = append(out, name+": "+expr)
		}
	}
	slices.Sort(out)
	return out
}

// runSeconds is the test run's length, which k6 divides every counter's
// count by to get its rate (the legacy export has no duration of its
// own); 0 when no counter moved.
func runSeconds(metrics map[string]metric) float64 {
	for _, name := range []string{"http_reqs", "iterations", "data_sent", "data_received"} {
		if v := metrics[name].values; v["count"] > 0 && v["rate"] > 0 {
			return v["count"] / v["rate"]
		}
	}
	return 0
}

// answered returns the requests that got an HTTP answer, their rate and
// error rate, and the connection-level failures, for http_reqs and
// http_req_failed with the given tag ("" or "{op:…}"): k6's counts less
// connect_errors. In either summary shape a Rate metric's "passes" counts
// its non-zero samples, which for http_req_failed are the failed requests.
func answered(metrics map[string]metric, tag string, seconds float64) (reqs int64, rps, errorRate float64, connect int64) {
	all := metrics["http_reqs"+tag].values
	failed := metrics["http_req_failed"+tag].values
	connect = int64(metrics[connectErrors+tag].values["count"])
	if connect == 0 {
		return int64(all["count"]), all["rate"], failed["value"], 0
	}
	reqs = max(0, int64(all["count"])-connect)
	if seconds > 0 {
		rps = float64(reqs) / seconds
	}
	if reqs > 0 {
		errorRate = max(0, failed["passes"]-float64(connect)) / float64(reqs)
	}
	return reqs, rps, errorRate, connect
}

// connectKinds splits connect_errors by kind (crud.js's refused, dns,
// timeout, reset, tls, other); nil when there were none.
func connectKinds(metrics map[string]metric) map[string]int64 {
	var out map[string]int64
	for name, m := range metrics {
		kind, ok := strings.CutPrefix(name, connectErrors+"{kind:")
		if n := int64(m.values["count"]); ok && n > 0 {
			if out == nil {
				out = map[string]int64{}
			}
			out[strings.TrimSuffix(kind, "}")] = n
		}
	}
	return out
}
