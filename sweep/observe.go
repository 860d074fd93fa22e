package sweep

import "github.com/sweep-tool/sweep/results"

// Observer is told the figures of a measured phase second by second, as
// they happen, for a live view of a run (package metrics/live serves
// them to Prometheus). The records are written as before; an observer
// only watches. Interval comes from the driver's goroutine and Sample
// from the samplers', so implementations must be cheap and safe for
// concurrent use.
type Observer interface {
	// Interval is the driver's figures of the second that just ended.
	Interval(job Job, iv results.Interval)
	// Sample is one reading of a sampler beside the measured phase.
	Sample(job Job, s Sample)
}

// Sample is one reading of the samplers beside a measured phase: the
// target container's or the database's; the other is nil.
type Sample struct {
	Target *results.ContainerSample
	DB     *results.DBSample
}

// SampleReporter is a Monitor that can report each reading as it takes
// it (metrics.Monitor); the runner points it at its Observer.
type SampleReporter interface {
	// ReportSamples sends the readings of the phases started from now on
	// to f; nil sends them nowhere.
	ReportSamples(f func(Sample))
}

// reportSamples points a Monitor that reports its readings at the
// observer, on behalf of job.
func (r *Runner) reportSamples(job Job) {
	sr, ok := r.Monitor.(SampleReporter)
	if !ok {
		return
	}
	var f func(Sample)
	if r.Observer != nil {
		f = func(s Sample) { r.Observer.Sample(job, s) }
	}
	sr.ReportSamples(f)
}

// observe is the driver's interval callback of a measured phase: it keeps
// the interval for samples.csv and tells the observer.
func (r *Runner) observe(job Job, intervals *[]results.Interval) func(results.Interval) {
	return func(iv results.Interval) {
		*intervals = append(*intervals, iv)
		if r.Observer != nil {
			r.Observer.Interval(job, iv)
		}
	}
}

// Progresses is one Progress that tells each of ps in turn (nil ones are
// left out), so a progress bar and a live view can watch the same run.
func Progresses(ps ...Progress) Progress {
	var all progresses
	for _, p := range ps {
		if p != nil {
			all = append(all, p)
		}
	}
	return all
}

type progresses []Progress

func (ps progresses) Begin(total, done int) {
	for _, p := range ps {
		p.Begin(total, done)
	}
}

func (ps progresses) Phase(job Job, phase string) {
	for _, p := range ps {
		p.Phase(job, phase)
	}
}

func (ps progresses) Done(job Job, rec results.Record) {
	for _, p := range ps {
		p.Done(job, rec)
	}
}
