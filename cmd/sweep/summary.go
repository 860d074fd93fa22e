package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// summarize prints the cells this invocation ran (status, target CPU %,
// peak DB sessions, warnings), the overhead, and the report's matrices.
func (e *runEnv) summarize(dir string, sum sweep.Summary, rf reportFlags) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\trep\tstatus\trps\tp99 ms\terrors %\ttarget cpu % of limit\tpeak db sessions\tnote")
	for _, r := range sum.Records {
		fmt.Fprintf(tw, "%s\tr%d\t%s\t%.1f\t%.2f\t%.2f\t%s\t%s\t%s\n", r.Cell.ID, r.Repetition, r.Status,
			r.RPS, r.LatencyMS.P99, r.ErrorRate*100, targetCPU(r, e.service), peakSessions(r), note(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "run %s: %d cells run, %d skipped (already done), %d failed; orchestration overhead %.2f s per cell (median of apply+ready+read-back+write)\n\n",
		e.runID, len(sum.Records), sum.Skipped, sum.Failed(), sum.OverheadS)
	if rf.skip {
		return nil
	}
	return writeReport(dir, rf, e.stdout, e.stderr)
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

func note(r results.Record) string {
	switch {
	case r.Status != results.StatusOK:
		return sweep.OneLine(r.Reason)
	case len(r.Warnings) > 0:
		return sweep.OneLine(r.Warnings[0])
	}
	return ""
}
