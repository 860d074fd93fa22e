package sweep

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// tickingDriver emits two intervals in each measured phase, as the
// drivers do once a second; a warm-up gets no interval callback.
type tickingDriver struct{ warmupCallback bool }

func (d *tickingDriver) Name() string { return "fake" }
func (d *tickingDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		d.warmupCallback = d.warmupCallback || req.Interval != nil
		return results.Measurement{}, nil
	}
	req.Interval(results.Interval{T: 1, Requests: 10})
	req.Interval(results.Interval{T: 2, Requests: 12, Errors: 1})
	return results.Measurement{Requests: 22, RPS: 11}, nil
}

// readingMonitor reports one target reading when it starts and one
// database reading when it stops, as the samplers do in between.
type readingMonitor struct {
	report func(Sample)
	calls  int // ReportSamples calls
}

func (m *readingMonitor) ReportSamples(f func(Sample)) { m.report, m.calls = f, m.calls+1 }
func (m *readingMonitor) Start(context.Context, Cell, string) error {
	if m.report != nil {
		m.report(Sample{Target: &results.ContainerSample{T: 1, CPUPctOfLimit: 50}})
	}
	return nil
}
func (m *readingMonitor) Stop(_ context.Context, rec *results.Record, _ string, _ []results.Interval) error {
	if m.report != nil {
		m.report(Sample{DB: &results.DBSample{T: 1, Total: 4}})
	}
	rec.Delivery = &results.Delivery{Method: results.DeliveryNone}
	return nil
}

// seen records what an Observer is told, one line per call.
type seen struct {
	mu    sync.Mutex
	lines []string
}

func (s *seen) Interval(job Job, iv results.Interval) {
	s.add(fmt.Sprintf("%s r%d interval t=%g requests=%d errors=%d", job.Cell.ID, job.Rep, iv.T, iv.Requests, iv.Errors))
}

func (s *seen) Sample(job Job, smp Sample) {
	switch {
	case smp.Target != nil:
		s.add(fmt.Sprintf("%s r%d target cpu=%g%%", job.Cell.ID, job.Rep, smp.Target.CPUPctOfLimit))
	case smp.DB != nil:
		s.add(fmt.Sprintf("%s r%d db sessions=%d", job.Cell.ID, job.Rep, smp.DB.Total))
	}
}

func (s *seen) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, line)
}

// TestRunnerTellsTheObserver: every interval of each measured phase and
// every reading of a reporting monitor reach the observer with their
// job, in order; the warm-up has no intervals.
func TestRunnerTellsTheObserver(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1, 2}, []float64{1}
	d, m, obs := &tickingDriver{}, &readingMonitor{}, &seen{}
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: d, Monitor: m, Observer: obs}
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, id := range []string{"cpu_1__web_1__db_2", "cpu_2__web_2__db_4"} {
		want = append(want, id+" r1 target cpu=50%", id+" r1 interval t=1 requests=10 errors=0",
			id+" r1 interval t=2 requests=12 errors=1", id+" r1 db sessions=4")
	}
	if !reflect.DeepEqual(obs.lines, want) {
		t.Errorf("observer was told\n%q\nwant\n%q", obs.lines, want)
	}
	if d.warmupCallback {
		t.Error("the warm-up had an interval callback")
	}
}

// TestRunnerWithoutObserver: without an observer a reporting monitor is
// told to report nowhere, and the records are as before.
func TestRunnerWithoutObserver(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
	m := &readingMonitor{report: func(Sample) { t.Error("a reading went to a stale callback") }}
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &tickingDriver{}, Monitor: m}
	sum, err := r.Run(t.Context())
	if err != nil || len(sum.Records) != 1 || sum.Records[0].Status != results.StatusOK {
		t.Fatalf("run: %v, %+v", err, sum.Records)
	}
	if m.calls != 1 || m.report != nil {
		t.Errorf("ReportSamples called %d times, callback nil %v; want once with nil", m.calls, m.report == nil)
	}
}

// progressLog records what a Progress is told.
type progressLog struct{ lines []string }

func (p *progressLog) Begin(total, done int) {
	p.lines = append(p.lines, fmt.Sprintf("begin %d %d", total, done))
}
func (p *progressLog) Phase(job Job, phase string) {
	p.lines = append(p.lines, fmt.Sprintf("%s r%d %s", job.Cell.ID, job.Rep, phase))
}
func (p *progressLog) Done(job Job, rec results.Record) {
	p.lines = append(p.lines, fmt.Sprintf("%s r%d done %s", job.Cell.ID, job.Rep, rec.Status))
}

// TestProgressesTellsEach: the fan-out tells every Progress the same
// calls in the same order, and leaves nil ones out.
func TestProgressesTellsEach(t *testing.T) {
	t.Parallel()
	a, b := &progressLog{}, &progressLog{}
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &fakeDriver{}, Progress: Progresses(a, nil, b)}
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	n := len(a.lines)
	if n < 3 || !reflect.DeepEqual(a.lines, b.lines) || a.lines[0] != "begin 1 0" ||
		!slices.Contains(a.lines, "cpu_1__web_1__db_2 r1 measure") || a.lines[n-1] != "cpu_1__web_1__db_2 r1 done ok" {
		t.Errorf("first told %q\nsecond told %q\nwant the same calls: begin, the phases, done", a.lines, b.lines)
	}
}

// TestPace: no ETA before this process ran a job; then the mean time of
// the jobs it ran times the jobs left, where jobs done by an earlier run
// count as done but not in the mean.
func TestPace(t *testing.T) {
	t.Parallel()
	var p Pace
	p.Begin(10, 2)
	if _, ok := p.Left(); ok {
		t.Error("an ETA before any job ran")
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.Start(t0)
	p.Done(t0.Add(10 * time.Second))
	p.Start(t0.Add(11 * time.Second))
	p.Done(t0.Add(31 * time.Second))
	done, total := p.Counts()
	left, ok := p.Left()
	if done != 4 || total != 10 || !ok || left != 6*15*time.Second {
		t.Errorf("counts %d/%d, left %s (%v); want 4/10 and 1m30s", done, total, left, ok)
	}
	// A job done without a start (skipped, or failed before apply) counts
	// as done and leaves the mean alone.
	p.Done(t0.Add(40 * time.Second))
	if done, _ := p.Counts(); done != 5 {
		t.Errorf("done %d after a job with no start, want 5", done)
	}
	if left, _ := p.Left(); left != 5*15*time.Second {
		t.Errorf("left %s after a job with no start, want 1m15s (the mean of the two that ran)", left)
	}
	// More jobs done than planned (a run's extra rounds) is no time left,
	// never a negative ETA.
	for range 6 {
		p.Done(t0.Add(time.Minute))
	}
	if left, _ := p.Left(); left != 0 {
		t.Errorf("left %s with more jobs done than planned, want 0", left)
	}
}
