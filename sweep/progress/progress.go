// Package progress is sweep's voice on a terminal while a grid runs: one
// line per finished cell with an ETA from the measured cell times, and on
// a terminal a bar with the current cell and phase. It is a
// sweep.Progress; everything else (the runner's log, the compose CLI's
// output) belongs in sweep.log.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Lines is a sweep.Progress that writes to w: a line per finished job,
// and a bar above them when w is a terminal.
type Lines struct {
	w    io.Writer
	bar  *progressbar.ProgressBar // nil when not a terminal
	pace sweep.Pace
}

// New is the progress of a run written to w (stderr).
func New(w io.Writer) *Lines { return &Lines{w: w} }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

// Begin starts the count (and the bar, on a terminal).
func (p *Lines) Begin(total, done int) {
	p.pace.Begin(total, done)
	if isTerminal(p.w) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetPredictTime(false))
		_ = p.bar.Set(done)
	}
}

// Phase shows the job's phase on the bar; apply starts its clock.
func (p *Lines) Phase(job sweep.Job, phase string) {
	if phase == "apply" {
		p.pace.Start(time.Now())
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s %s %-8s ETA %s", job.Cell.ID, job.Label(), phase, p.eta()))
	}
}

// Done prints the job's one line: a timestamp, cells done / total, the
// cell, its status with its figures or the first line of its reason, and
// the ETA; on a terminal above the bar.
func (p *Lines) Done(job sweep.Job, rec results.Record) {
	p.pace.Done(time.Now())
	done, total := p.pace.Counts()
	line := fmt.Sprintf("%s [%d/%d] %s %s %s %s, ETA %s", time.Now().Format("15:04:05"),
		done, total, job.Cell.ID, job.Label(), rec.Status, sweep.Brief(rec), p.eta())
	if p.bar != nil {
		_ = p.bar.Clear()
		fmt.Fprintln(p.w, line)
		_ = p.bar.Add(1)
		return
	}
	fmt.Fprintln(p.w, line)
}

// eta is the mean time of the cells run so far times the cells left.
func (p *Lines) eta() string {
	left, ok := p.pace.Left()
	if !ok {
		return "?"
	}
	return left.Round(time.Second).String()
}
