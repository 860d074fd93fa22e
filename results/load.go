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
	// PoolPerWeb: the pool size was per web worker (the spec's
	// pool_per_web), so the database saw web × pool connections.
	PoolPerWeb bool
	CPUs       []float64
	WebMult    []float64
	DBMult     []float64
	// Compose lists the run's base compose files as the spec saved them
	// (relative paths are relative to where sweep ran).
	Compose []string
	// Manifests are a Kubernetes run's manifests, and Container its
	// target's container when the spec named one (as saved).
	Manifests []string
	Container string
	// HostCPUs is the engine host's CPU count from sweep.json's host
	// facts; 0 when the run did not record it.
	HostCPUs int
	// Cells lists the planned cells in plan order, each with its finished
	// repetitions (none when the cell has not finished).
	Cells []RunCell
	// Missing lists the ids of planned cells with no finished repetition
	// (and, in a halving run, no screening-round record either).
	Missing []string
	// Strategy is the strategy that measured the run: "" for the grid
	// (every cell at full length), "halving" for successive halving.
	Strategy string
	// MaxRepeat is the cap of automatic repetitions when the run repeated
	// the cells of ties until they parted (strategy/repeat); 0 otherwise.
	MaxRepeat int
	// Schedule is how the cells shared the host: "" one at a time,
	// "interleaved" every target of a CPU limit at once, a slice of load
	// each per round (each repetition's Record.LoadSlice says where).
	Schedule string
	// Screened lists, in a halving run, the planned cells measured only in
	// screening rounds: screened out (or not yet measured in full).
	Screened []string
	// Warnings are non-fatal problems found while reading (torn files,
	// unreadable records).
	Warnings []string
}

// RunCell is one planned cell and its finished repetitions, ordered by
// repetition number.
type RunCell struct {
	CellInfo
	Reps []Rep
	// Screens are the cell's finished screening-round records in a
	// halving run (cells/<id>/round<k>), by round; none in a grid run.
	Screens []Screen
	// Controls are the cell's control measurements, by lane and sequence:
	// in a run --parallel (cells/<id>/control<lane>) the same short load on
	// every lane's node at once, to compare the nodes; on one stack
	// (cells/<id>/control<lane>.<seq>) the run's reference cell measured at
	// its start, every few cells and at its end. Never repetitions.
	Controls []Control
}

// Control is the control cell as one lane of run --parallel measured it
// (Seq 0), or one of the run's repeated control measurements (Seq from 1,
// see ControlSeqDir).
type Control struct {
	Lane int
	Seq  int
	Record
}

// Screen is one finished screening-round record of a halving run: a short
// measurement that decided whether the cell went on, not one the report
// analyses beside the full-length ones.
type Screen struct {
	Round int
	Record
}

// Rep is one finished repetition as the report reads it. The metric
// blocks (Resources, DB, Driver) are nil or empty when their sampler did
// not run.
type Rep struct {
	Record
}

// specFacts are the parts of sweep.json's spec (the sweep package's
// Spec, as Meta.Spec holds it) that the report reads; the names are the
// Spec's JSON names (sweep's tests read a Spec back through them).
type specFacts struct {
	CPUs      []float64 `json:"cpus"`
	WebMult   []float64 `json:"web_mult"`
	DBMult    []float64 `json:"db_mult"`
	Service   string    `json:"service"`
	WebEnv    string    `json:"web_env"`
	PoolEnv   string    `json:"pool_env"`
	PerWeb    bool      `json:"pool_per_web"`
	Compose   []string  `json:"compose"`
	Manifests []string  `json:"manifests"`
	Container string    `json:"container"`
	Strategy  string    `json:"strategy"`
	MaxRepeat int       `json:"max_repeat"`
	Schedule  string    `json:"schedule"`
}

// LoadRun reads the run directory dir: sweep.json and every
// cells/<id>/r<N>/result.json. Unfinished (interrupted) repetitions leave
// their cell missing; a result.json that is no record fails the load with
// an error wrapping ErrBadRecord that names the file. It returns ErrNotRun
// when dir has no readable sweep.json and ErrNoFinishedCells when no
// repetition has finished.
func LoadRun(dir string) (*Run, error) {
	meta, spec, err := readSweepFile(dir)
	if err != nil {
		return nil, err
	}
	run := &Run{
		Dir: dir, RunID: meta.RunID, Service: spec.Service,
		WebEnv: spec.WebEnv, PoolEnv: spec.PoolEnv, PoolPerWeb: spec.PerWeb,
		CPUs: spec.CPUs, WebMult: spec.WebMult, DBMult: spec.DBMult,
		Compose: spec.Compose, Manifests: spec.Manifests, Container: spec.Container, HostCPUs: meta.Host.CPUCount, Strategy: spec.Strategy,
		MaxRepeat: spec.MaxRepeat, Schedule: spec.Schedule,
	}
	finished := 0
	for _, info := range meta.Cells {
		rc, err := readCell(filepath.Join(dir, CellsDir, info.ID), info)
		if err != nil {
			return nil, err
		}
		run.Cells = append(run.Cells, rc)
		reps := rc.Reps
		switch {
		case len(reps) > 0:
		case len(rc.Screens) > 0:
			run.Screened = append(run.Screened, info.ID)
		default:
			run.Missing = append(run.Missing, info.ID)
		}
		finished += len(reps)
	}
	if finished == 0 {
		return nil, fmt.Errorf("%s: %w (%d cells planned)", dir, ErrNoFinishedCells, len(meta.Cells))
	}
	return run, nil
}

// readSweepFile reads sweep.json as Meta, and the spec's facts in it.
func readSweepFile(dir string) (Meta, specFacts, error) {
	var spec specFacts
	path := filepath.Join(dir, MetaFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Meta{}, spec, fmt.Errorf("%s: %w: no sweep.json", dir, ErrNotRun)
	}
	if err != nil {
		return Meta{}, spec, fmt.Errorf("read %s: %w", path, err)
	}
	meta, err := decodeMeta(b)
	if err == nil && len(meta.Spec) > 0 {
		err = json.Unmarshal(meta.Spec, &spec)
	}
	if err != nil {
		return meta, spec, fmt.Errorf("%s: %w: sweep.json: %w", dir, ErrNotRun, err)
	}
	if len(meta.Cells) == 0 {
		return meta, spec, fmt.Errorf("%s: %w: sweep.json lists no cells", dir, ErrNotRun)
	}
	return meta, spec, nil
}

// readCell reads the finished repetitions (r<N>), screening rounds
// (round<k>) and lanes' controls (control<lane>) under one cell directory. A result.json that is no record
// (torn, `null`, `{}`) is an error naming it: a lost measurement is never
// passed over in silence.
func readCell(cellDir string, info CellInfo) (RunCell, error) {
	rc := RunCell{CellInfo: info}
	entries, err := os.ReadDir(cellDir)
	if err != nil {
		return rc, nil // not started yet
	}
	for _, e := range entries {
		_, isRep := numbered(e.Name(), "r")
		round, isScreen := numbered(e.Name(), screenPrefix)
		lane, seq, isControl := controlNumbers(e.Name())
		if !e.IsDir() || !isRep && !isScreen && !isControl {
			continue
		}
		rec, err := ReadRecord(filepath.Join(cellDir, e.Name(), ResultFile))
		switch {
		case errors.Is(err, fs.ErrNotExist) || err == nil && !rec.Status.Done():
		case err != nil:
			return rc, err
		case isRep:
			rc.Reps = append(rc.Reps, Rep{Record: rec})
		case isControl:
			rc.Controls = append(rc.Controls, Control{Lane: lane, Seq: seq, Record: rec})
		default:
			rc.Screens = append(rc.Screens, Screen{Round: round, Record: rec})
		}
	}
	sort.Slice(rc.Reps, func(i, j int) bool { return rc.Reps[i].Repetition < rc.Reps[j].Repetition })
	sort.Slice(rc.Screens, func(i, j int) bool { return rc.Screens[i].Round < rc.Screens[j].Round })
	sort.Slice(rc.Controls, func(i, j int) bool {
		a, b := rc.Controls[i], rc.Controls[j]
		return a.Lane < b.Lane || a.Lane == b.Lane && a.Seq < b.Seq
	})
	return rc, nil
}

// numbered returns N of a folder named prefix + N.
func numbered(name, prefix string) (int, bool) {
	n, ok := strings.CutPrefix(name, prefix)
	v, err := strconv.Atoi(n)
	return v, ok && err == nil
}
