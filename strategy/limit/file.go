package limit

import (
	"path/filepath"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// FileName is the file a search writes into its directory: the run
// directory of `sweep limit`, or a cell repetition's with run
// --find-limit.
const FileName = "limit.json"

// Statuses of a search's file.
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusInterrupted = "interrupted"
)

// File is limit.json: the search's result with what was measured.
type File struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	// Status is running, done or interrupted.
	Status string           `json:"status"`
	Cell   results.CellInfo `json:"cell"`
	Driver string           `json:"driver"`
	Result
	Spec sweep.Spec `json:"spec"`
}

// NewFile is the file of a search of cell in a run of spec (its DSNs
// left out) with driver, before any level: status running, the search's
// SLO and config.
func NewFile(runID string, spec sweep.Spec, cell sweep.Cell, driver string, cfg Config) File {
	f := File{SchemaVersion: results.SchemaVersion, RunID: runID, Status: StatusRunning,
		Cell: cell.Info(), Driver: driver, Spec: spec.Redacted()}
	f.SLO, f.Config = cfg.SLO, cfg
	return f
}

// Write writes f as dir/limit.json, atomically.
func (f File) Write(dir string) error {
	return results.WriteJSONAtomic(filepath.Join(dir, FileName), f)
}
