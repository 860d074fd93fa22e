// Package studyrun turns the Game of Pools study's published table
// (game-of-pools-summary.csv: CPU limit, web threads, DB pool, average RPS,
// P99, total requests per cell) into records and a run directory, so the
// report and the strategy replay can be tested on the study's own data.
// The table records no timings; Params supplies them, so a replay can
// price the study's grid as it ran (30 s warm-up, 5 min measure) with an
// overhead per cell measured elsewhere.
package studyrun

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// The study's grid and settings.
var (
	CPUs    = []float64{2, 4, 6, 8}
	WebMult = sweep.DefaultWebMult
	DBMult  = sweep.DefaultDBMult
)

// Params are the timings the table does not record. With Overhead and
// Warmup zero the records carry no phases_s (the table alone).
type Params struct {
	// Overhead is each cell's time beyond warm-up and measure (recreate,
	// ready, write); it is recorded as the apply phase.
	Overhead time.Duration
	Warmup   time.Duration
	// Measure is the measured phase; zero means the study's 5 minutes.
	Measure time.Duration
}

// StudyParams are the study's own durations (30 s warm-up, 5 min measure)
// with overhead per cell.
func StudyParams(overhead time.Duration) Params {
	return Params{Overhead: overhead, Warmup: 30 * time.Second, Measure: 5 * time.Minute}
}

// Records reads the table and returns one ok record per cell of the
// study's grid, in plan order, as the study ran it: k6, closed model with
// VUs = 2 × web threads.
func Records(table io.Reader, p Params) ([]results.Record, error) {
	rows, err := csv.NewReader(table).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("study table: %w", err)
	}
	byID := map[string][]string{}
	for _, r := range rows[min(1, len(rows)):] {
		if len(r) < 8 {
			return nil, fmt.Errorf("study table: row %v has %d columns, want 8", r, len(r))
		}
		byID[fmt.Sprintf("cpu_%s__web_%s__db_%s", r[0], r[1], r[2])] = r
	}
	plan := sweep.BuildPlan(CPUs, WebMult, DBMult)
	if len(byID) != len(plan) {
		return nil, fmt.Errorf("study table: %d cells, the grid has %d", len(byID), len(plan))
	}
	out := make([]results.Record, 0, len(plan))
	for _, c := range plan {
		r, ok := byID[c.ID]
		if !ok {
			return nil, fmt.Errorf("study table: cell %s is missing", c.ID)
		}
		rec, err := record(c, r, p)
		if err != nil {
			return nil, fmt.Errorf("study table: %s: %w", c.ID, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

func record(c sweep.Cell, row []string, p Params) (results.Record, error) {
	rps, err1 := strconv.ParseFloat(row[3], 64)
	p99, err2 := strconv.ParseFloat(row[4], 64)
	total, err3 := strconv.ParseInt(row[7], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return results.Record{}, fmt.Errorf("unreadable row %v", row)
	}
	measure := p.Measure
	if measure == 0 {
		measure = 5 * time.Minute
	}
	rec := results.Record{SchemaVersion: results.SchemaVersion, Cell: c.Info(), Repetition: 1, Status: results.StatusOK,
		Load: results.LoadInfo{Driver: "k6", Model: "closed", VUs: 2 * c.WebThreads, VUsPerWeb: 2},
		Measurement: results.Measurement{Requests: total, RPS: rps, LatencyMS: results.Latency{P99: p99},
			DurationS: measure.Seconds()}}
	if p.Overhead > 0 || p.Warmup > 0 {
		rec.PhasesS = map[string]float64{"apply": p.Overhead.Seconds(), "warmup": p.Warmup.Seconds(), "measure": measure.Seconds()}
	}
	return rec, nil
}
