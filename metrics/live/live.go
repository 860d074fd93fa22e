// Package live serves a run's progress and the running cell's figures to
// Prometheus while the run goes (`sweep run --metrics-addr`), so a night
// can be watched in Grafana as the study watched it.
//
// Metrics is fed by the runner through its two existing ports: it is a
// sweep.Progress (the jobs, their phases, their records) and a
// sweep.Observer (each second of a measured phase: the driver's interval,
// the samplers' readings). It keeps its own prometheus.Registry, never the
// global one, so what a scrape shows is exactly what this package
// declares. The running cell's per-second series carry the cell and the
// repetition as labels and exist only while that cell is measured: they
// are removed when it enters another phase or has its record, so no
// finished cell's last second lingers in a dashboard.
package live

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sweep-tool/sweep/sweep"
)

// cellLabels label the running cell's per-second series.
var cellLabels = []string{"cell", "repetition"}

// Metrics is the live view of one run: a sweep.Progress and a
// sweep.Observer that keep Prometheus metrics. Its methods are safe for
// concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	mu      sync.Mutex
	now     func() time.Time // the clock of the ETA
	pace    sweep.Pace
	job     sweep.Job // the running job, while running
	running bool
	phase   string
	lastT   float64 // end of the measured phase's previous interval

	planned, done prometheus.Gauge
	failed        prometheus.Counter
	eta           *prometheus.GaugeVec // no labels: absent until known
	cell          *prometheus.GaugeVec // cell, repetition, phase
	perSecond     []*prometheus.GaugeVec

	rps, errRatio, p99, cpu, sessions, active *prometheus.GaugeVec
}

// New returns the metrics of a run that has not begun, registered in a
// registry of their own.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), now: time.Now}
	m.planned = m.gauge("sweep_cells_planned", "Cell runs (cells × repetitions) the run has in all.")
	m.done = m.gauge("sweep_cells_done",
		"Cell runs that have their record, those an earlier run of the same directory finished included.")
	m.failed = prometheus.NewCounter(prometheus.CounterOpts{Name: "sweep_cells_failed_total",
		Help: "Cell runs this process finished with status failed."})
	m.eta = m.vec("sweep_eta_seconds", "Estimated time until the last cell run has its record: the mean time "+
		"of the cell runs this process finished times the cell runs left. Absent until one finished.")
	m.cell = m.vec("sweep_cell_info", "The running cell and the phase it is in (apply, ready, readback, "+
		"reset, warmup, measure, ...); always 1, absent between cells.", "cell", "repetition", "phase")
	m.rps = m.vec("sweep_requests_per_second", "Requests per second of the running cell's last measured "+
		"second, over the interval's own length (samples.csv's rps).", cellLabels...)
	m.errRatio = m.vec("sweep_error_ratio", "Share of the running cell's requests in its last measured "+
		"second that failed; absent for a second without requests.", cellLabels...)
	m.p99 = m.vec("sweep_latency_p99_seconds", "99th percentile latency of the running cell's last measured "+
		"second; absent when the driver cannot tell.", cellLabels...)
	m.cpu = m.vec("sweep_target_cpu_ratio", "CPU the target used over the last second as a share of its CPU "+
		"limit (1 = the whole limit).", cellLabels...)
	m.sessions = m.vec("sweep_db_sessions", "Client sessions of the target database at the last reading "+
		"(with --db-dsn); absent while the database does not answer.", cellLabels...)
	m.active = m.vec("sweep_db_sessions_active", "Active client sessions of the target database at the last "+
		"reading.", cellLabels...)
	m.perSecond = []*prometheus.GaugeVec{m.rps, m.errRatio, m.p99, m.cpu, m.sessions, m.active}
	m.reg.MustRegister(m.failed)
	return m
}

func (m *Metrics) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	m.reg.MustRegister(g)
	return g
}

func (m *Metrics) vec(name, help string, labels ...string) *prometheus.GaugeVec {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	m.reg.MustRegister(g)
	return g
}

// Registry is where the metrics are registered, for a caller that serves
// or gathers them itself.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in Prometheus's exposition formats.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, MaxRequestsInFlight: 4})
}

// Attach makes r report to m: m joins r's Progress (a fan-out keeps the
// one already there) and becomes r's Observer.
func (m *Metrics) Attach(r *sweep.Runner) {
	r.Progress = sweep.Progresses(r.Progress, m)
	r.Observer = m
}
