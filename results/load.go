package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNotRun is returned by LoadRun for a directory that holds no readable
// sweep.json: it is not a run directory.
var ErrNotRun = errors.New("not a run directory")

// ErrNoFinishedCells is returned by LoadRun for a run directory in which no
// cell repetition has finished (ok or failed).
var ErrNoFinishedCells = errors.New("no finished cells")

// Run is a run directory read back for reporting: the parts of sweep.json
// the report needs and every finished cell repetition.
type Run struct {
	// Dir is the run directory as given to LoadRun.
	Dir   string
	RunID string
	// Service is the target service; its block in Usage.Resources is the
	// target's.
	Service string
	// WebEnv and PoolEnv name the swept variables (BOX_WEB_THREAD, ...).
	WebEnv  string
	PoolEnv string
	CPUs    []float64
	WebMult []float64
	DBMult  []float64
	// Compose lists the run's base compose files as the spec saved them
	// (relative paths are relative to where sweep ran).
	Compose []string
	// HostCPUs is the engine host's CPU count from sweep.json's host
	// facts; 0 when the run did not record it.
	HostCPUs int
	// Cells lists the planned cells in plan order, each with its finished
	// repetitions (none when the cell has not finished).
	Cells []RunCell
	// Missing lists the ids of planned cells with no finished repetition.
	Missing []string
	// Warnings are non-fatal problems found while reading (torn files,
	// unreadable records).
	Warnings []string
}

// RunCell is one planned cell and its finished repetitions, ordered by
// repetition number.
type RunCell struct {
	CellInfo
	Reps []Rep
}

// Rep is one finished repetition as the report reads it. The metric
// blocks (Resources, DB, Driver) are nil or empty when their sampler did
// not run.
type Rep struct {
	Record
}

// sweepFile is the subset of sweep.json that LoadRun reads.
type sweepFile struct {
	RunID string `json:"run_id"`
	Spec  struct {
		CPUs    []float64 `json:"cpus"`
		WebMult []float64 `json:"web_mult"`
		DBMult  []float64 `json:"db_mult"`
		Service string    `json:"service"`
		WebEnv  string    `json:"web_env"`
		PoolEnv string    `json:"pool_env"`
		Compose []string  `json:"compose"`
	} `json:"spec"`
	Cells []CellInfo `json:"cells"`
	Host  HostFacts  `json:"host"`
}

// LoadRun reads the run directory dir: sweep.json and every
// cells/<id>/r<N>/result.json. Unfinished (interrupted) repetitions leave
// their cell missing; a result.json that is no record fails the load with
// an error wrapping ErrBadRecord that names the file. It returns ErrNotRun
// when dir has no readable sweep.json and ErrNoFinishedCells when no
// repetition has finished.
func LoadRun(dir string) (*Run, error) {
	sf, err := readSweepFile(dir)
	if err != nil {
		return nil, err
	}
	run := &Run{
		Dir: dir, RunID: sf.RunID, Service: sf.Spec.Service,
		WebEnv: sf.Spec.WebEnv, PoolEnv: sf.Spec.PoolEnv,
		CPUs: sf.Spec.CPUs, WebMult: sf.Spec.WebMult, DBMult: sf.Spec.DBMult,
		Compose: sf.Spec.Compose, HostCPUs: sf.Host.CPUCount,
	}
	finished := 0
	for _, info := range sf.Cells {
		reps, err := readReps(filepath.Join(dir, CellsDir, info.ID))
		if err != nil {
			return nil, err
		}
		run.Cells = append(run.Cells, RunCell{CellInfo: info, Reps: reps})
		if len(reps) == 0 {
			run.Missing = append(run.Missing, info.ID)
		}
		finished += len(reps)
	}
	if finished == 0 {
		return nil, fmt.Errorf("%s: %w (%d cells planned)", dir, ErrNoFinishedCells, len(sf.Cells))
	}
	return run, nil
}

func readSweepFile(dir string) (*sweepFile, error) {
	path := filepath.Join(dir, "sweep.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w: no sweep.json", dir, ErrNotRun)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var sf sweepFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return nil, fmt.Errorf("%s: %w: sweep.json: %w", dir, ErrNotRun, err)
	}
	if len(sf.Cells) == 0 {
		return nil, fmt.Errorf("%s: %w: sweep.json lists no cells", dir, ErrNotRun)
	}
	return &sf, nil
}

// readReps reads the finished repetitions under one cell directory. A
// result.json that is no record (torn, `null`, `{}`) is an error naming
// it: a lost measurement is never passed over in silence.
func readReps(cellDir string) ([]Rep, error) {
	entries, err := os.ReadDir(cellDir)
	if err != nil {
		return nil, nil // not started yet
	}
	var reps []Rep
	for _, e := range entries {
		if !e.IsDir() || !isRepDir(e.Name()) {
			continue
		}
		rec, err := ReadRecord(filepath.Join(cellDir, e.Name(), ResultFile))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		case rec.Status.Done():
			reps = append(reps, Rep{Record: rec})
		}
	}
	sort.Slice(reps, func(i, j int) bool { return reps[i].Repetition < reps[j].Repetition })
	return reps, nil
}

func isRepDir(name string) bool {
	n, ok := strings.CutPrefix(name, "r")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}
