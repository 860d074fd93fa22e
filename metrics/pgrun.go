package metrics

import (
	"context"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// DBRun is a PostgreSQL sampler in progress.
type DBRun struct {
	db     *DB
	start  time.Time
	cancel context.CancelFunc
	done   chan struct{}
	series dbSeries
	report func(results.DBSample)
}

// Start takes a baseline reading and then one reading per Tick until
// Stop. A database that does not answer is not an error: the reading is
// marked missing and the next tick dials again. Each reading is bounded
// by a tick, so Stop returns within about a second even while the
// database is unreachable.
func (d *DB) Start(ctx context.Context) *DBRun { return d.StartReporting(ctx, nil) }

// StartReporting is Start that also gives report each reading as it is
// taken (missing ones too), from the sampler's goroutine; nil: none.
func (d *DB) StartReporting(ctx context.Context, report func(results.DBSample)) *DBRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &DBRun{db: d, start: time.Now(), cancel: cancel, done: make(chan struct{}), report: report}
	if base, err := d.read(ctx); err == nil {
		r.series.last = &base
	}
	go r.loop(ctx)
	return r
}

func (r *DBRun) loop(ctx context.Context) {
	defer close(r.done)
	tick := time.NewTicker(Tick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			rd, err := r.db.read(ctx)
			r.series.observe(now.Sub(r.start).Seconds(), rd, err == nil)
			if r.report != nil {
				r.report(r.series.samples[len(r.series.samples)-1])
			}
		}
	}
}

// Stop ends sampling and returns the summary and the per-second series.
func (r *DBRun) Stop() (results.DBStats, []results.DBSample) {
	r.cancel()
	<-r.done
	return r.series.summary(r.db.MaxConnections), r.series.samples
}

// dbSeries accumulates readings. Counters are differences between
// consecutive good readings, so a statistics reset or a server restart
// (counters going back) costs one interval, not the phase.
type dbSeries struct {
	samples []results.DBSample
	last    *pgReading
	good    int
	missing int

	totalSum, activeSum, idleSum float64
	peak                         results.DBSessions
	serverPeak                   int

	commits, rollbacks, rateS float64
	deadlocks, temp           int64
}

// ownCommits is what the sampler itself commits per reading: its query.
const ownCommits = 1

func (s *dbSeries) observe(t float64, rd pgReading, ok bool) {
	if !ok {
		s.missing++
		s.samples = append(s.samples, results.DBSample{T: t, Missing: true})
		return
	}
	smp := results.DBSample{T: t, Total: rd.total, Active: rd.active, Idle: rd.idle,
		IdleInTx: rd.idleInTx, Waiting: rd.waiting}
	if p := s.last; p != nil && countersGrew(p, &rd) {
		dt := rd.at.Sub(p.at).Seconds()
		commits := float64(rd.commits-p.commits) - ownCommits
		rollbacks := float64(rd.rollbacks - p.rollbacks)
		smp.TPS, smp.RollbacksPerS = max(0, commits)/dt, rollbacks/dt
		s.commits, s.rollbacks, s.rateS = s.commits+commits, s.rollbacks+rollbacks, s.rateS+dt
		s.deadlocks += rd.deadlocks - p.deadlocks
		s.temp += rd.temp - p.temp
	}
	s.last = &rd
	s.good++
	s.totalSum += float64(rd.total)
	s.activeSum += float64(rd.active)
	s.idleSum += float64(rd.idle)
	s.peak.TotalPeak = max(s.peak.TotalPeak, rd.total)
	s.peak.ActivePeak = max(s.peak.ActivePeak, rd.active)
	s.peak.IdleInTxPeak = max(s.peak.IdleInTxPeak, rd.idleInTx)
	s.peak.WaitingPeak = max(s.peak.WaitingPeak, rd.waiting)
	s.serverPeak = max(s.serverPeak, rd.serverTotal)
	s.samples = append(s.samples, smp)
}

func countersGrew(p, c *pgReading) bool {
	return c.at.After(p.at) && c.commits >= p.commits && c.rollbacks >= p.rollbacks &&
		c.deadlocks >= p.deadlocks && c.temp >= p.temp
}

func (s *dbSeries) summary(maxConns int) results.DBStats {
	st := results.DBStats{
		Sessions:              s.peak,
		Deadlocks:             s.deadlocks,
		TempBytes:             s.temp,
		MaxConnections:        maxConns,
		MaxConnectionsUsedPct: pct(float64(s.serverPeak), float64(maxConns)),
		Samples:               len(s.samples),
		SamplesMissing:        s.missing,
	}
	if s.good > 0 {
		n := float64(s.good)
		st.Sessions.TotalMean = s.totalSum / n
		st.Sessions.ActiveMean = s.activeSum / n
		st.Sessions.IdleMean = s.idleSum / n
	}
	if s.rateS > 0 {
		st.TPSMean = max(0, s.commits) / s.rateS
		st.RollbacksPerSMean = s.rollbacks / s.rateS
	}
	return st
}
