package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
)

// ReadIntervals reads the driver's per-second series back from a
// samples.csv: one Interval per row that has an rps, with T the row's
// second, Requests its rps rounded (a whole second's requests; a short
// last second comes back scaled to a whole one, as written) and Errors and
// P99MS as written (0 where empty). Columns are found by their header
// names, so columns added later do not disturb it.
func ReadIntervals(path string) ([]Interval, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	col := map[string]int{}
	for _, name := range []string{"t", "rps", "errors", "p99_ms"} {
		if col[name] = slices.Index(header, name); col[name] < 0 {
			return nil, fmt.Errorf("%s: no %q column", path, name)
		}
	}
	var out []Interval
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		iv, ok, err := intervalOf(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if ok {
			out = append(out, iv)
		}
	}
}

// intervalOf parses one row; ok is false when the driver gave nothing for
// that second.
func intervalOf(rec []string, col map[string]int) (Interval, bool, error) {
	if rec[col["rps"]] == "" {
		return Interval{}, false, nil
	}
	var iv Interval
	var rps float64
	var err error
	if iv.T, err = strconv.ParseFloat(rec[col["t"]], 64); err != nil {
		return iv, false, fmt.Errorf("t: %w", err)
	}
	if rps, err = strconv.ParseFloat(rec[col["rps"]], 64); err != nil {
		return iv, false, fmt.Errorf("rps: %w", err)
	}
	iv.Requests = int64(math.Round(rps))
	if s := rec[col["errors"]]; s != "" {
		if iv.Errors, err = strconv.ParseInt(s, 10, 64); err != nil {
			return iv, false, fmt.Errorf("errors: %w", err)
		}
	}
	if s := rec[col["p99_ms"]]; s != "" {
		if iv.P99MS, err = strconv.ParseFloat(s, 64); err != nil {
			return iv, false, fmt.Errorf("p99_ms: %w", err)
		}
	}
	return iv, true, nil
}
