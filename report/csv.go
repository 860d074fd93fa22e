package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/sweep-tool/sweep/results"
)

// fixedColumns come first in results.csv, in this order; the per-operation,
// error-class, latency breakdown, resources, db and driver columns follow,
// sorted, when any repetition has them.
var fixedColumns = []string{
	"run_id", "cell_id", "cpus", "web_threads", "db_pool", "web_mult", "db_mult", "repetition",
	"status", "reason", "load_driver", "load_model", "vus", "rate", "duration_s", "requests", "rps",
	"error_rate", "latency_avg_ms", "latency_min_ms", "latency_p50_ms", "latency_p75_ms",
	"latency_p90_ms", "latency_p95_ms", "latency_p99_ms", "latency_max_ms", "iterations",
	"iterations_per_s", "dropped_iterations", "bottleneck",
}

// WriteCSV writes results.csv: one row per finished cell repetition, every
// metric a column, empty where a repetition lacks it.
func WriteCSV(w io.Writer, rep *Report) error {
	var rows []map[string]string
	extra := map[string]bool{}
	for i, rc := range rep.run.Cells {
		for _, r := range rc.Reps {
			row := csvRow(rep.RunID, r, rep.Cells[i].Bottleneck)
			for k := range row {
				if !slices.Contains(fixedColumns, k) {
					extra[k] = true
				}
			}
			rows = append(rows, row)
		}
	}
	cols := append(slices.Clone(fixedColumns), sortedKeys(extra)...)
	cw := csv.NewWriter(w)
	if err := cw.Write(cols); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	line := make([]string, len(cols))
	for _, row := range rows {
		for i, c := range cols {
			line[i] = row[c]
		}
		if err := cw.Write(line); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	return cw.Error()
}

func sortedKeys(m map[string]bool) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func csvRow(runID string, r results.Rep, bottleneck string) map[string]string {
	l := r.LatencyMS
	row := map[string]string{
		"run_id": runID, "cell_id": r.Cell.ID, "cpus": num(r.Cell.CPUs),
		"web_threads": strconv.Itoa(r.Cell.WebThreads), "db_pool": strconv.Itoa(r.Cell.DBPool),
		"web_mult": num(r.Cell.WebMult), "db_mult": num(r.Cell.DBMult), "repetition": strconv.Itoa(r.Repetition),
		"status": string(r.Status), "reason": r.Reason, "load_driver": r.Load.Driver, "load_model": r.Load.Model,
		"vus": strconv.Itoa(r.Load.VUs), "rate": num(r.Load.Rate), "duration_s": num(r.DurationS),
		"requests": strconv.FormatInt(r.Requests, 10), "rps": num(r.RPS), "error_rate": num(r.ErrorRate),
		"latency_avg_ms": num(l.Avg), "latency_min_ms": num(l.Min), "latency_p50_ms": num(l.P50),
		"latency_p75_ms": num(l.P75), "latency_p90_ms": num(l.P90), "latency_p95_ms": num(l.P95),
		"latency_p99_ms": num(l.P99), "latency_max_ms": num(l.Max),
		"iterations": strconv.FormatInt(r.Iterations, 10), "iterations_per_s": num(r.IterationsPerS),
		"dropped_iterations": strconv.FormatInt(r.DroppedIterations, 10), "bottleneck": bottleneck,
	}
	for op, s := range r.Ops {
		p := "ops." + op + "."
		row[p+"requests"], row[p+"rps"] = strconv.FormatInt(s.Requests, 10), num(s.RPS)
		row[p+"error_rate"], row[p+"p50_ms"] = num(s.ErrorRate), num(s.LatencyMS.P50)
		row[p+"p95_ms"], row[p+"p99_ms"] = num(s.LatencyMS.P95), num(s.LatencyMS.P99)
	}
	for class, n := range r.Errors {
		row["errors."+class] = strconv.FormatInt(n, 10)
	}
	addBreakdown(row, r.Breakdown)
	addSafeLimit(row, r.SafeLimit)
	addUsage(row, r)
	addConsistency(row, r)
	addAxes(row, r.Cell)
	return row
}

// addAxes adds the extra axes' values (variant, load level, memory, env
// axes) as columns.
func addAxes(row map[string]string, c results.CellInfo) {
	for k, v := range map[string]string{"variant": c.Variant, "load_level": c.LoadLevel, "memory": c.Memory} {
		if v != "" {
			row[k] = v
		}
	}
	for k, v := range c.Axes {
		row["axis."+k] = v
	}
}

func addUsage(row map[string]string, r results.Rep) {
	for svc, u := range r.Resources {
		p := "resources." + svc + "."
		row[p+"cpu_cores_mean"], row[p+"cpu_cores_max"] = num(u.CPUCoresMean), num(u.CPUCoresMax)
		row[p+"cpu_pct_of_limit_mean"], row[p+"throttled_s"] = num(u.CPUPctOfLimitMean), num(u.ThrottledS)
		row[p+"throttled_periods"] = strconv.FormatUint(u.ThrottledPeriods, 10)
		if w := u.CPUWaitCoresMean; w != nil {
			row[p+"cpu_wait_cores_mean"] = num(*w)
		}
		row[p+"mem_peak_bytes"] = strconv.FormatUint(u.MemPeakBytes, 10)
		row[p+"oom_killed"], row[p+"restarts"] = strconv.FormatBool(u.OOMKilled), strconv.Itoa(u.Restarts)
	}
	if d := r.DB; d != nil {
		s := d.Sessions
		row["db.sessions_total_mean"], row["db.sessions_total_peak"] = num(s.TotalMean), strconv.Itoa(s.TotalPeak)
		row["db.sessions_active_mean"], row["db.sessions_active_peak"] = num(s.ActiveMean), strconv.Itoa(s.ActivePeak)
		row["db.sessions_idle_mean"], row["db.sessions_idle_in_tx_peak"] = num(s.IdleMean), strconv.Itoa(s.IdleInTxPeak)
		row["db.tps_mean"], row["db.max_connections"] = num(d.TPSMean), strconv.Itoa(d.MaxConnections)
	}
	if r.Driver != nil {
		row["driver.cpu_cores_mean"] = num(r.Driver.CPUCoresMean)
	}
}
