package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sweep-tool/sweep/confidence"
	"github.com/sweep-tool/sweep/results"
)

// WriteRepetitions prints every repetition of a cell of the run in dir
// with the spread between the ok ones, so a person can tell a real
// difference from noise (sweep rerun).
func WriteRepetitions(w io.Writer, dir, cellID string) error {
	var rps, p99 []float64
	fmt.Fprintf(w, "%s\n%-5s %-8s %10s %10s %9s\n", cellID, "rep", "status", "rps", "p99 ms", "errors %")
	for rep := 1; ; rep++ {
		rec, err := results.ReadRecord(filepath.Join(results.CellDir(dir, cellID, rep), results.ResultFile))
		if os.IsNotExist(err) {
			break
		}
		if err != nil {
			fmt.Fprintf(w, "r%-4d unreadable: %v\n", rep, err)
			continue
		}
		fmt.Fprintf(w, "r%-4d %-8s %10.1f %10.2f %9.2f\n", rep, rec.Status, rec.RPS, rec.LatencyMS.P99, rec.ErrorRate*100)
		if rec.Status == results.StatusOK {
			rps, p99 = append(rps, rec.RPS), append(p99, rec.LatencyMS.P99)
		}
	}
	if len(rps) < 2 {
		_, err := fmt.Fprintln(w, "noise: one ok repetition only; nothing to compare")
		return err
	}
	_, err := fmt.Fprintf(w, "noise: rps spread %.1f%% (coefficient of variation), p99 spread %.1f%%; "+
		"the newest differs from the mean of the earlier ones by %+.1f%% rps, %+.1f%% p99\n",
		cv(rps), cv(p99), lastDelta(rps), lastDelta(p99))
	return err
}

// cv is the coefficient of variation in percent (0 where it means
// nothing).
func cv(xs []float64) float64 {
	c, _ := confidence.CV(xs)
	return 100 * c
}

// lastDelta is the last value against the mean of the others, in percent.
func lastDelta(xs []float64) float64 {
	n := len(xs)
	var sum float64
	for _, x := range xs[:n-1] {
		sum += x
	}
	mean := sum / float64(n-1)
	if mean == 0 {
		return 0
	}
	return 100 * (xs[n-1] - mean) / mean
}
