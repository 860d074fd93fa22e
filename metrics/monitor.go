package metrics

import (
	"context"
	"fmt"
	"sort"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Monitor watches a cell's measured phase with both samplers: every
// container of the stack and, when a database is connected, its sessions
// and transactions. It implements sweep.Monitor.
type Monitor struct {
	// Engine is the Docker Engine to read stats from.
	Engine Engine
	// Containers lists the stack's running containers, service → id.
	Containers func(ctx context.Context) (map[string]string, error)
	// Target is the swept service; its CPU limit is the cell's.
	Target string
	// DB returns the database sampler's connection, or nil (no --db-dsn,
	// or not connected yet).
	DB func() *DB
	// Pooler returns the PgBouncer admin connection, or nil (no
	// --pooler-dsn, or not connected yet).
	Pooler func() *PgBouncer
	// URL is where the driver sends the load; the target's reception of
	// it is recorded for the proof of delivery.
	URL string
	// Received, when set, reads the target's received bytes as its
	// platform samples them (a stack without a Docker Engine): the proof
	// of delivery then brackets the phase between two samples.
	Received CountReceived
	// TargetUsage, when set, opens (once a phase) the reading of the
	// target's CPU, throttling and memory as its platform's metrics give
	// them (a stack without a Docker Engine): the target's resources come
	// from it.
	TargetUsage OpenUsage

	run     *Run
	usage   *usageRun
	dbRun   *DBRun
	poolRun *PoolerRun
	rx      *Reception
	srx     *sampledReception
	report  func(sweep.Sample)
}

var (
	_ sweep.Monitor        = (*Monitor)(nil)
	_ sweep.SampleReporter = (*Monitor)(nil)
)

// ReportSamples sends the target's and the database's readings of the
// phases started from now on to f as they are taken; nil: nowhere.
func (m *Monitor) ReportSamples(f func(sweep.Sample)) { m.report = f }

// Start begins sampling the cell's containers and database.
func (m *Monitor) Start(ctx context.Context, cell sweep.Cell, _ string) error {
	ids, err := m.Containers(ctx)
	if err != nil {
		return fmt.Errorf("list containers: %w", err)
	}
	services := make([]string, 0, len(ids))
	for s := range ids {
		services = append(services, s)
	}
	sort.Strings(services)
	targets := make([]Target, 0, len(ids))
	for _, s := range services {
		t := Target{Service: s, ID: ids[s]}
		if s == m.Target {
			t.CPULimit = cell.CPUs
			if f := m.report; f != nil {
				t.Report = func(c results.ContainerSample) { f(sweep.Sample{Target: &c}) }
			}
		}
		targets = append(targets, t)
	}
	m.run = Start(ctx, m.Engine, targets)
	if m.TargetUsage != nil {
		t := Target{Service: m.Target, CPULimit: cell.CPUs}
		if f := m.report; f != nil {
			t.Report = func(c results.ContainerSample) { f(sweep.Sample{Target: &c}) }
		}
		m.usage = startUsage(ctx, m.TargetUsage, t)
	}
	// Last, so the reading before the phase is as close to it as can be.
	defer func() {
		if m.Received != nil {
			m.srx = startSampled(ctx, m.Received)
			return
		}
		if id, ok := ids[m.Target]; ok {
			m.rx = StartReception(ctx, m.Engine, id, m.URL)
		}
	}()
	if m.DB != nil {
		if db := m.DB(); db != nil {
			m.dbRun = db.StartReporting(ctx, m.dbReport())
		}
	}
	if m.Pooler != nil {
		if b := m.Pooler(); b != nil {
			m.poolRun = StartPooler(ctx, b)
		}
	}
	return nil
}

// dbReport is the database sampler's report callback, or nil.
func (m *Monitor) dbReport() func(results.DBSample) {
	f := m.report
	if f == nil {
		return nil
	}
	return func(d results.DBSample) { f(sweep.Sample{DB: &d}) }
}

// Stop ends sampling, puts the resources, db and delivery blocks into
// rec and writes samples.csv into dir.
func (m *Monitor) Stop(ctx context.Context, rec *results.Record, dir string, intervals []results.Interval) error {
	series := results.Series{Intervals: intervals}
	if m.run != nil {
		var byService map[string][]results.ContainerSample
		rec.Resources, byService = m.run.Stop()
		series.Target = byService[m.Target]
		m.run = nil
	}
	if m.usage != nil {
		rs, samples := m.usage.stop()
		if rec.Resources == nil {
			rec.Resources = map[string]results.ResourceStats{}
		}
		rec.Resources[m.Target], series.Target = rs, samples
		m.usage = nil
	}
	if m.dbRun != nil {
		stats, samples := m.dbRun.Stop()
		rec.DB, series.DB = &stats, samples
		m.dbRun = nil
	}
	if m.poolRun != nil {
		stats := m.poolRun.Stop()
		rec.Pooler = &stats
		m.poolRun = nil
	}
	rec.Delivery = m.stopReception(ctx)
	return results.WriteSamples(dir, series)
}

// stopReception reads what the target received over the phase.
func (m *Monitor) stopReception(ctx context.Context) *results.Delivery {
	if m.srx != nil {
		ctx, cancel := context.WithTimeout(ctx, freshWait+queryTimeout)
		defer cancel()
		d := m.srx.Stop(ctx)
		m.srx = nil
		return d
	}
	if m.rx == nil {
		return none("the target was not running when the phase began")
	}
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	d := m.rx.Stop(ctx)
	m.rx = nil
	return d
}
