package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// WriteRan prints the cells one invocation of a run ran (status, RPS,
// p99, errors, the target's CPU, peak DB sessions, Little's ratio over
// its expectation and the first reason or warning), then the counts and
// the orchestration overhead; service is the target's, runID the run's.
func WriteRan(w io.Writer, runID, service string, sum sweep.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\trep\tstatus\trps\tp99 ms\terrors %\ttarget cpu % of limit\tpeak db sessions\tlittle's\tnote")
	for _, r := range sum.Records {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.2f\t%.2f\t%s\t%s\t%s\t%s\n", r.Cell.ID, ranLabel(r), r.Status,
			r.RPS, r.LatencyMS.P99, r.ErrorRate*100, targetCPU(r, service), peakSessions(r), ranLittles(r), ranNote(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "run %s: %d cells run, %d skipped (already done), %d failed; orchestration overhead %.2f s per cell (median of apply+ready+read-back+write)\n\n",
		runID, len(sum.Records), sum.Skipped, sum.Failed(), sum.OverheadS)
	return nil
}

// ranLabel names the record's job: r<N>, or control<lane>[.<seq>].
func ranLabel(r results.Record) string {
	switch {
	case r.Control > 0 && r.ControlSeq > 0:
		return fmt.Sprintf("control%d.%d", r.Control, r.ControlSeq)
	case r.Control > 0:
		return fmt.Sprintf("control%d", r.Control)
	}
	return fmt.Sprintf("r%d", r.Repetition)
}

func targetCPU(r results.Record, service string) string {
	if s, ok := r.Resources[service]; ok {
		return fmt.Sprintf("%.0f", s.CPUPctOfLimitMean)
	}
	return "-"
}

func peakSessions(r results.Record) string {
	if r.DB == nil {
		return "-"
	}
	return fmt.Sprint(r.DB.Sessions.TotalPeak)
}

// ranLittles is the Little's ratio over what the driver's figures lead one
// to expect, marked OFF beyond the tolerance; "-" without one.
func ranLittles(r results.Record) string {
	if r.LittlesRatio == nil || r.LittlesExpected == nil || *r.LittlesExpected <= 0 {
		return "-"
	}
	s := fmt.Sprintf("%.2f", *r.LittlesRatio / *r.LittlesExpected)
	if r.LittlesOff() != "" {
		s += " OFF"
	}
	return s
}

func ranNote(r results.Record) string {
	switch {
	case r.Status != results.StatusOK:
		return sweep.OneLine(r.Reason)
	case r.LittlesOff() != "":
		return r.LittlesOff()
	case len(r.Warnings) > 0:
		return sweep.OneLine(r.Warnings[0])
	}
	return ""
}
