package live

import (
	"strconv"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

var (
	_ sweep.Progress = (*Metrics)(nil)
	_ sweep.Observer = (*Metrics)(nil)
)

// measurePhase is the runner's name of the measured phase.
const measurePhase = "measure"

// Begin sets the cell runs planned and done.
func (m *Metrics) Begin(total, done int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pace.Begin(total, done)
	m.planned.Set(float64(total))
	m.done.Set(float64(done))
}

// Phase makes job the running cell in phase. A phase other than the
// measured one removes the cell's per-second series; the measured one
// starts its intervals afresh.
func (m *Metrics) Phase(job sweep.Job, phase string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if phase == "apply" {
		m.pace.Start(m.now())
	}
	if m.running && (job.Cell.ID != m.job.Cell.ID || phase != measurePhase) {
		m.clearSeconds()
	}
	m.job, m.running, m.phase = job, true, phase
	if phase == measurePhase {
		m.lastT = 0
	}
	m.cell.Reset()
	m.cell.WithLabelValues(job.Cell.ID, rep(job), phase).Set(1)
}

// Done counts job's record, a failed one in the failed counter, updates
// the ETA and removes the running cell's series.
func (m *Metrics) Done(job sweep.Job, rec results.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pace.Done(m.now())
	done, _ := m.pace.Counts()
	m.done.Set(float64(done))
	if rec.Status == results.StatusFailed {
		m.failed.Inc()
	}
	if left, ok := m.pace.Left(); ok {
		m.eta.WithLabelValues().Set(left.Seconds())
	}
	m.clearSeconds()
	m.cell.Reset()
	m.running = false
}

// Interval sets the running cell's RPS, error ratio and p99 from the
// second that just ended.
func (m *Metrics) Interval(job sweep.Job, iv results.Interval) {
	m.ofRunning(job, func(labels []string) {
		m.interval(labels, iv)
	})
}

func (m *Metrics) interval(labels []string, iv results.Interval) {
	m.rps.WithLabelValues(labels...).Set(iv.RPS(iv.T - m.lastT))
	m.lastT = iv.T
	if iv.Requests > 0 {
		m.errRatio.WithLabelValues(labels...).Set(float64(iv.Errors) / float64(iv.Requests))
	} else {
		m.errRatio.DeleteLabelValues(labels...)
	}
	if iv.P99MS > 0 {
		m.p99.WithLabelValues(labels...).Set(iv.P99MS / 1000)
	} else {
		m.p99.DeleteLabelValues(labels...)
	}
}

// Sample sets the target's CPU share of its limit or the database's
// sessions from a sampler's reading.
func (m *Metrics) Sample(job sweep.Job, s sweep.Sample) {
	m.ofRunning(job, func(labels []string) {
		m.sample(labels, s)
	})
}

func (m *Metrics) sample(labels []string, s sweep.Sample) {
	if c := s.Target; c != nil {
		m.cpu.WithLabelValues(labels...).Set(c.CPUPctOfLimit / 100)
	}
	switch d := s.DB; {
	case d == nil:
	case d.Missing:
		m.sessions.DeleteLabelValues(labels...)
		m.active.DeleteLabelValues(labels...)
	default:
		m.sessions.WithLabelValues(labels...).Set(float64(d.Total))
		m.active.WithLabelValues(labels...).Set(float64(d.Active))
	}
}

// ofRunning calls f with the running cell's labels when job is the
// running one; a late reading of a cell that has its record, or of
// another, is dropped. A safe-limit search measures its levels as
// repetition 1 of the cell it searches, so the cell alone decides.
func (m *Metrics) ofRunning(job sweep.Job, f func(labels []string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running && job.Cell.ID == m.job.Cell.ID {
		f(m.labels())
	}
}

// clearSeconds removes the running cell's per-second series.
func (m *Metrics) clearSeconds() {
	for _, v := range m.perSecond {
		v.Reset()
	}
}

// labels are the running cell's, as Progress named it.
func (m *Metrics) labels() []string { return []string{m.job.Cell.ID, rep(m.job)} }

func rep(job sweep.Job) string { return strconv.Itoa(job.Rep) }
