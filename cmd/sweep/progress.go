package main

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

// progress is sweep's voice on stderr while a grid runs: one line per
// finished cell with an ETA from the measured cell times, and on a
// terminal a bar with the current cell and phase. Everything else (the
// runner's log, the compose CLI's output) goes to sweep.log only.
type progress struct {
	w    io.Writer
	bar  *progressbar.ProgressBar // nil when not a terminal
	pace sweep.Pace
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func (p *progress) Begin(total, done int) {
	p.pace.Begin(total, done)
	if isTerminal(p.w) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionShowCount(), progressbar.OptionSetWidth(30),
			progressbar.OptionClearOnFinish(), progressbar.OptionSetPredictTime(false))
		_ = p.bar.Set(done)
	}
}

func (p *progress) Phase(job sweep.Job, phase string) {
	if phase == "apply" {
		p.pace.Start(time.Now())
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("%s r%d %-8s ETA %s", job.Cell.ID, job.Rep, phase, p.eta()))
	}
}

// Done prints the job's one line: a timestamp, cells done / total, the
// cell, its status with its figures or the first line of its reason, and
// the ETA; on a terminal above the bar.
func (p *progress) Done(job sweep.Job, rec results.Record) {
	p.pace.Done(time.Now())
	done, total := p.pace.Counts()
	line := fmt.Sprintf("%s [%d/%d] %s r%d %s %s, ETA %s", time.Now().Format("15:04:05"),
		done, total, job.Cell.ID, job.Rep, rec.Status, sweep.Brief(rec), p.eta())
	if p.bar != nil {
		_ = p.bar.Clear()
		fmt.Fprintln(p.w, line)
		_ = p.bar.Add(1)
		return
	}
	fmt.Fprintln(p.w, line)
}

// eta is the mean time of the cells run so far times the cells left.
func (p *progress) eta() string {
	left, ok := p.pace.Left()
	if !ok {
		return "?"
	}
	return left.Round(time.Second).String()
}
