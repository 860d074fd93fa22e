package session

import (
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Event is something a person should know while a session runs, as data:
// the caller decides the words. Each is one of the types below.
type Event interface{ event() }

// Started: the run begins (Jobs > 0: only these jobs, e.g. one cell
// again).
type Started struct {
	RunID, Dir          string
	Cells, Repeat, Jobs int
	// Rounds, above 0, are an interleaved run's rounds (Repeat is then 1).
	Rounds int
}

// Resumed: the run directory holds this run with the same spec; it goes on.
type Resumed struct{ RunID, Dir string }

// MovedAside: the run directory held a run with another spec, which was
// moved aside (Options.ForceNew).
type MovedAside struct{ Dir, To string }

// LockTakenOver: the run directory's lock was held by a process that is
// gone.
type LockTakenOver struct {
	Dir string
	PID int
}

// Kept: the spec keeps the stack up at the end; it runs as this compose
// project.
type Kept struct{ RunID, Project string }

// TeardownFailed: a stack could not be taken down; what is left carries
// the run's label.
type TeardownFailed struct {
	RunID string
	Err   error
}

// NoDatabase: the spec names no database, so nothing samples one.
type NoDatabase struct{}

// Waiting: a database (or PgBouncer) does not answer yet; the session
// waits up to For for it.
type Waiting struct {
	What string
	For  time.Duration
	Err  error
}

// NoK6: k6 was not found, so the built-in driver runs the load.
type NoK6 struct{}

// DriverNotice: what the load driver overrides to run the load as asked
// (k6 and a user's script).
type DriverNotice struct{ Text string }

// LimitStarted: a safe-limit search begins.
type LimitStarted struct {
	RunID, Cell, Model, SLO, Dir string
}

// LevelMeasured: one level of a safe-limit search has its record.
type LevelMeasured struct {
	Cell   string
	Step   int
	Model  string
	Level  int
	Record results.Record
}

// LanesPlaced: with Spec.Parallel, the lanes and the node each runs on
// (every service of its stack pinned there), with the URL its load goes
// to.
type LanesPlaced struct{ Lanes []LaneInfo }

// LaneInfo is one lane: its number (from 1), node, stack and URL.
type LaneInfo struct {
	Lane    int
	Node    sweep.LaneNode
	Project string
	URL     string
}

// LaneControl: the control cell as every lane measured it; Warning, when
// set, says the lanes measured it further apart (Spread, a share of the
// mean RPS) than the report's noise band.
type LaneControl struct {
	Cell    string
	Lanes   []LaneFigure
	Spread  float64
	Warning string
}

// LaneFigure is the control cell on one lane.
type LaneFigure struct {
	Lane     int
	Node     sweep.LaneNode
	Status   string
	RPS, P99 float64
}

func (Started) event()        {}
func (LanesPlaced) event()    {}
func (LaneControl) event()    {}
func (Resumed) event()        {}
func (MovedAside) event()     {}
func (LockTakenOver) event()  {}
func (Kept) event()           {}
func (TeardownFailed) event() {}
func (NoDatabase) event()     {}
func (Waiting) event()        {}
func (NoK6) event()           {}
func (DriverNotice) event()   {}
func (LimitStarted) event()   {}
func (LevelMeasured) event()  {}

// String is the level's line: the cell, the step, the level and its
// status with its figures or the first line of its reason.
func (e LevelMeasured) String() string {
	brief := sweep.OneLine(e.Record.Reason)
	if e.Record.Status == results.StatusOK {
		brief = fmt.Sprintf("%d requests, %.2f%% ok, p99 %.2f ms", e.Record.Requests, (1-e.Record.ErrorRate)*100, e.Record.LatencyMS.P99)
	}
	return fmt.Sprintf("%s step %d: %s=%d: %s %s", e.Cell, e.Step, e.Model, e.Level, e.Record.Status, brief)
}
