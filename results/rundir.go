package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Names of the files in a run directory.
const (
	MetaFile     = "sweep.json"
	ResultFile   = "result.json"
	OverrideFile = "override.yaml"
	SummaryFile  = "driver-summary.json"
	SamplesFile  = "samples.csv"
	TargetLog    = "target.log"
	LogFile      = "sweep.log"
	CellsDir     = "cells"
	// ScriptDir keeps a copy of the user's k6 script (--script).
	ScriptDir = "script"
	// ScenarioDir keeps a copy of the built-in driver's scenario file
	// (--scenario).
	ScenarioDir = "scenario"
	// K6DashboardFile is k6's web dashboard report of a cell's measured
	// phase, in the cell repetition's directory, when k6 was asked to
	// export it.
	K6DashboardFile = "k6-dashboard.html"
)

// Meta is sweep.json: what was asked and on what it ran.
type Meta struct {
	SchemaVersion int       `json:"schema_version"`
	RunID         string    `json:"run_id"`
	CreatedAt     time.Time `json:"created_at"`
	ToolVersion   string    `json:"tool_version"`
	// Spec is the resolved spec (the sweep package's Spec, DSN removed).
	Spec json.RawMessage `json:"spec"`
	// DBSampled says the run sampled a database (--db-dsn). The DSN itself
	// is not a spec: a resume may give another host or password.
	DBSampled bool `json:"db_sampled,omitempty"`
	// DSNHash is what runs before db_sampled wrote instead; only whether
	// it is set is read (see SampledDB).
	DSNHash string     `json:"db_dsn_hash,omitempty"`
	Cells   []CellInfo `json:"cells"`
	Host    HostFacts  `json:"host"`
	// Images maps each service to the image ID it ran.
	Images map[string]string `json:"images,omitempty"`
	// ComposeConfigHash is the sha256 of the merged compose configuration.
	ComposeConfigHash string `json:"compose_config_hash,omitempty"`
}

// SampledDB reports whether the run sampled a database.
func (m Meta) SampledDB() bool { return m.DBSampled || m.DSNHash != "" }

// HostFacts describe the machine a run measured on.
type HostFacts struct {
	CPUModel       string `json:"cpu_model,omitempty"`
	CPUCount       int    `json:"cpu_count"`
	DockerVersion  string `json:"docker_version,omitempty"`
	ComposeVersion string `json:"compose_version,omitempty"`
	K6Version      string `json:"k6_version,omitempty"`
	Driver         string `json:"driver,omitempty"`
}

// CellDir is the folder of one cell repetition (r1, r2, …).
func CellDir(run, cellID string, rep int) string {
	return filepath.Join(run, CellsDir, cellID, "r"+strconv.Itoa(rep))
}

// GroupsDir holds, in an interleaved run, a folder per group of targets
// that ran at once (GroupDir): what the backend wrote to start them (an
// override). The slices' records are the cells' repetitions.
const GroupsDir = "groups"

// GroupDir is the folder of group k (from 1) of an interleaved run.
func GroupDir(run string, k int) string {
	return filepath.Join(run, GroupsDir, "g"+strconv.Itoa(k))
}

// ScreenDir is the folder of one cell's screening-round measurement in a
// halving run (round1, round2, …): apart from the repetitions (r1, …) that
// hold the full-length measurements the report analyses.
func ScreenDir(run, cellID string, round int) string {
	return filepath.Join(run, CellsDir, cellID, screenPrefix+strconv.Itoa(round))
}

const screenPrefix = "round"

// ControlDir is the folder of the control cell's measurement on one lane
// of run --parallel (control1, control2, …): apart from the cell's
// repetitions, which the report analyses.
func ControlDir(run, cellID string, lane int) string {
	return filepath.Join(run, CellsDir, cellID, controlPrefix+strconv.Itoa(lane))
}

const controlPrefix = "control"

// ControlSeqDir is the folder of the seq-th measurement (from 1) of the
// run's control cell on lane (1 on one stack): control<lane>.<seq>, so a
// run that measures its control again and again keeps each measurement,
// apart from the cell's repetitions and from the lanes' start-of-run
// controls (control<lane>).
func ControlSeqDir(run, cellID string, lane, seq int) string {
	return filepath.Join(run, CellsDir, cellID, controlName(lane, seq))
}

func controlName(lane, seq int) string {
	return controlPrefix + strconv.Itoa(lane) + "." + strconv.Itoa(seq)
}

// controlNumbers returns the lane and the sequence number of a control
// folder: control<lane> (seq 0) or control<lane>.<seq>.
func controlNumbers(name string) (lane, seq int, ok bool) {
	rest, found := strings.CutPrefix(name, controlPrefix)
	if !found {
		return 0, 0, false
	}
	l, s, dotted := strings.Cut(rest, ".")
	lane, err := strconv.Atoi(l)
	if err != nil || lane < 1 {
		return 0, 0, false
	}
	if !dotted {
		return lane, 0, true
	}
	seq, err = strconv.Atoi(s)
	return lane, seq, err == nil && seq >= 1
}

// WriteError is a run file that could not be written: its path and the
// OS error (read-only file system, no space left on device, ...). A run
// that meets one stops, because every later record would be lost too.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("cannot write %s: %v", e.Path, e.Err) }

// Unwrap returns the OS error.
func (e *WriteError) Unwrap() error { return e.Err }

// writeError wraps err as a WriteError of path, keeping only the OS error
// of a *PathError or *LinkError (their paths are temporary files).
func writeError(path string, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &WriteError{Path: path, Err: err}
}

// MakeDir creates dir and its parents; a failure is a WriteError. The
// lanes of run --parallel share a run directory, and a lane that aborts a
// job removes the parents its folder leaves empty (cells/<id>, cells):
// when such a parent goes between MkdirAll's look and its own mkdir, the
// mkdir fails with ENOENT (or with EEXIST, the parent made by the other
// lane and gone again before MkdirAll looks at it), and MakeDir tries
// again.
func MakeDir(dir string) error {
	var err error
	for range makeDirAttempts {
		err = os.MkdirAll(dir, 0o755)
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return writeError(dir, err)
	}
	return nil
}

// makeDirAttempts bounds MakeDir's retries: each one lost means another
// parent was removed in the moment between two system calls.
const makeDirAttempts = 100

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader never sees a torn file. Every failure
// is a *WriteError naming path.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return writeError(path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return writeError(path, err)
	}
	return nil
}

// CheckRunDir checks, before a run starts, that run can hold it: where the
// run keeps a directory (run itself, cells/, cells/<id>/ and their r<N>/
// for each cell id and repetition) there is a directory or nothing, and
// the nearest existing one can be written.
func CheckRunDir(run string, cellIDs []string, reps int) error {
	dirs := []string{run, filepath.Join(run, CellsDir)}
	for _, id := range cellIDs {
		dirs = append(dirs, filepath.Join(run, CellsDir, id))
		for rep := 1; rep <= reps; rep++ {
			dirs = append(dirs, CellDir(run, id, rep))
		}
	}
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && !st.IsDir() {
			return fmt.Errorf("%s is a file where the run keeps a directory", d)
		}
	}
	return writable(run)
}

// writable checks that dir, or its nearest existing parent, can be written
// without creating anything.
func writable(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s is not a directory", d)
			}
			return unix.Access(d, unix.W_OK|unix.X_OK)
		}
		if !errors.Is(err, os.ErrNotExist) || d == filepath.Dir(d) {
			return err
		}
	}
}

// WriteJSONAtomic writes v as indented JSON with WriteFileAtomic.
func WriteJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// ErrBadRecord marks a result.json that exists but is no record: torn,
// `null`, `{}`, or without a status or cell id.
var ErrBadRecord = errors.New("not a cell record")

// ReadRecord reads one result.json. A missing file gives an error wrapping
// fs.ErrNotExist; one that is not a record an error wrapping ErrBadRecord
// that names path.
func ReadRecord(path string) (Record, error) {
	var rec Record
	data, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("%s: %w: %w", path, ErrBadRecord, err)
	}
	switch {
	case rec.Status != StatusOK && rec.Status != StatusFailed && rec.Status != StatusInterrupted && rec.Status != StatusSkipped:
		return rec, fmt.Errorf("%s: %w: status %q", path, ErrBadRecord, rec.Status)
	case rec.Cell.ID == "":
		return rec, fmt.Errorf("%s: %w: no cell id", path, ErrBadRecord)
	}
	return rec, nil
}

// ReadMeta reads sweep.json of a run directory.
func ReadMeta(run string) (Meta, error) {
	data, err := os.ReadFile(filepath.Join(run, MetaFile))
	if err != nil {
		return Meta{}, err
	}
	m, err := decodeMeta(data)
	if err != nil {
		return m, fmt.Errorf("parse %s: %w", MetaFile, err)
	}
	return m, nil
}

// decodeMeta is the one decoding of sweep.json (ReadMeta, LoadRun).
func decodeMeta(data []byte) (Meta, error) {
	var m Meta
	err := json.Unmarshal(data, &m)
	return m, err
}

// Write writes m as sweep.json of the run directory dir, atomically: the
// one writing of sweep.json.
func (m Meta) Write(dir string) error {
	return WriteJSONAtomic(filepath.Join(dir, MetaFile), m)
}
