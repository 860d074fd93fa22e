package sweep

import "time"

// Pace counts a run's jobs as a Progress sees them and estimates the time
// left from the jobs this process ran: their mean time (from entering
// apply to having a record) times the jobs left. Jobs an earlier run of
// the directory finished count as done but not in the mean. The progress
// line and the live metrics share it, so both show the same ETA.
type Pace struct {
	total, done int
	ran         int // jobs run by this process
	spent       time.Duration
	start       time.Time
}

// Begin starts counting: total jobs, done of them finished already.
func (p *Pace) Begin(total, done int) { p.total, p.done = total, done }

// Start notes that a job began at (its apply phase).
func (p *Pace) Start(at time.Time) { p.start = at }

// Done notes that the job begun last has its record at at. A job that
// ends without having begun (skipped, or failed before its apply phase)
// counts as done but not in the mean: it took no time to speak of, and
// the zero start would make its length some two thousand years.
func (p *Pace) Done(at time.Time) {
	p.done++
	if p.start.IsZero() {
		return
	}
	p.ran++
	p.spent += at.Sub(p.start)
	p.start = time.Time{}
}

// Counts returns the jobs done and the jobs in all.
func (p *Pace) Counts() (done, total int) { return p.done, p.total }

// Left is the estimated time to the last job's record; ok is false until
// this process has run a job.
func (p *Pace) Left() (left time.Duration, ok bool) {
	if p.ran == 0 {
		return 0, false
	}
	return time.Duration(max(0, p.total-p.done)) * (p.spent / time.Duration(p.ran)), true
}
