package main

import (
	"fmt"
	"io"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/session"
)

// tell is a session's Notify: what a person should know, one line each
// on w (stderr), in sweep's words and with the flags that steer it.
func tell(w io.Writer) func(session.Event) {
	return func(e session.Event) {
		switch e := e.(type) {
		case session.Started:
			switch {
			case e.Jobs > 0:
				fmt.Fprintf(w, "sweep: run %s: %d job(s) → %s\n", e.RunID, e.Jobs, e.Dir)
			case e.Rounds > 0:
				fmt.Fprintf(w, "sweep: run %s: %d targets × %d rounds, interleaved (--schedule) → %s\n", e.RunID, e.Cells, e.Rounds, e.Dir)
			default:
				fmt.Fprintf(w, "sweep: run %s: %d cells × %d repetitions → %s\n", e.RunID, e.Cells, e.Repeat, e.Dir)
			}
		case session.LanesPlaced:
			for _, l := range e.Lanes {
				fmt.Fprintf(w, "sweep: --parallel: lane %d on node %s (%s, %s): stack %s, load to %s\n",
					l.Lane, l.Node.ID, l.Node.Hostname, l.Node.Addr, l.Project, l.URL)
			}
		case session.LaneControl:
			for _, l := range e.Lanes {
				fmt.Fprintf(w, "sweep: control cell %s on lane %d (node %s): %s, %.0f RPS, p99 %.1f ms\n",
					e.Cell, l.Lane, l.Node.ID, l.Status, l.RPS, l.P99)
			}
			ok := 0
			for _, l := range e.Lanes {
				if l.Status == string(results.StatusOK) {
					ok++
				}
			}
			switch {
			case e.Warning != "":
				fmt.Fprintf(w, "sweep: warning: %s\n", e.Warning)
			case ok < 2: // a spread of fewer than two figures is none
				fmt.Fprintf(w, "sweep: the lanes' control cell cannot be compared: %d of %d lanes measured it ok\n", ok, len(e.Lanes))
			default:
				fmt.Fprintf(w, "sweep: the lanes measured the control cell %.0f %% apart: within the noise\n", 100*e.Spread)
			}
		case session.Resumed:
			fmt.Fprintf(w, "sweep: resuming run %s in %s\n", e.RunID, e.Dir)
		case session.MovedAside:
			fmt.Fprintf(w, "sweep: --force-new: moved the earlier run to %s\n", e.To)
		case session.LockTakenOver:
			fmt.Fprintf(w, "sweep: took over the lock of %s from process %d, which is gone\n", e.Dir, e.PID)
		case session.Kept:
			fmt.Fprintf(w, "sweep: --keep: the stack stays up as %s (a compose project, or with --swarm a swarm stack); `sweep clean --run %s` removes it\n", e.Project, e.RunID)
		case session.TeardownFailed:
			fmt.Fprintf(w, "sweep: tear down: %v; `sweep clean --run %s` removes what is left\n", e.Err, e.RunID)
		case session.NoDatabase:
			fmt.Fprintln(w, "sweep: no --db-dsn: database metrics are skipped and the report says so")
		case session.Waiting:
			fmt.Fprintf(w, "sweep: waiting up to %s for %s: %v\n", e.For, e.What, e.Err)
		case session.NoK6:
			fmt.Fprintln(w, "sweep: k6 not found on PATH; using the built-in driver (--driver builtin)")
		case session.DriverNotice:
			fmt.Fprintf(w, "sweep: %s\n", e.Text)
		case session.LimitStarted:
			fmt.Fprintf(w, "sweep: limit %s: %s, %s levels, SLO %s → %s\n", e.RunID, e.Cell, e.Model, e.SLO, e.Dir)
		case session.LevelMeasured:
			fmt.Fprintf(w, "sweep: %s\n", e)
		}
	}
}
