package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
)

// SamplesHeader is the header of samples.csv, a contract like the JSON
// keys.
var SamplesHeader = []string{
	"t", "rps", "errors", "p99_ms", "cpu_cores", "cpu_pct_of_limit", "throttled_periods",
	"mem_bytes", "db_sessions_total", "db_sessions_active", "db_sessions_idle",
	"db_sessions_idle_in_tx", "db_tps",
}

// Series is what samples.csv is made of: the driver's intervals, the
// target container's readings and the database's readings of one
// measured phase. Any of them may be empty.
type Series struct {
	Intervals []Interval
	Target    []ContainerSample
	DB        []DBSample
}

// WriteSamples writes dir/samples.csv atomically.
func WriteSamples(dir string, s Series) error {
	var buf bytes.Buffer
	if err := WriteSamplesCSV(&buf, s); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, SamplesFile), buf.Bytes())
}

// WriteSamplesCSV writes one row per measured second, t = 1 … n, where n
// is the driver's last interval (or the samplers' last reading when the
// driver gave none). A driver interval belongs to the second it ends in
// (a short last interval still gets its own row, its rps scaled to its
// length); a sampler reading, taken at any phase of the second, belongs to
// the nearest second boundary. Values nobody measured are empty fields.
func WriteSamplesCSV(w io.Writer, s Series) error {
	rows := alignRows(s)
	cw := csv.NewWriter(w)
	if err := cw.Write(SamplesHeader); err != nil {
		return fmt.Errorf("write samples: %w", err)
	}
	for i, r := range rows {
		rec := make([]string, 0, len(SamplesHeader))
		rec = append(rec, strconv.Itoa(i+1))
		rec = append(rec, r.driverFields()...)
		rec = append(rec, r.containerFields()...)
		rec = append(rec, r.dbFields()...)
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("write samples: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write samples: %w", err)
	}
	return nil
}

// sampleRow is one second of the three series; nil means not measured.
type sampleRow struct {
	iv     *Interval
	ivLen  float64
	target *ContainerSample
	db     *DBSample
}

func alignRows(s Series) []sampleRow {
	var n int
	for _, iv := range s.Intervals {
		n = max(n, intervalSecond(iv.T))
	}
	if len(s.Intervals) == 0 {
		for _, c := range s.Target {
			n = max(n, readingSecond(c.T))
		}
		for _, d := range s.DB {
			n = max(n, readingSecond(d.T))
		}
	}
	rows := make([]sampleRow, n)
	prevT := 0.0
	for i := range s.Intervals {
		iv := &s.Intervals[i]
		rows[intervalSecond(iv.T)-1].iv, rows[intervalSecond(iv.T)-1].ivLen = iv, iv.T-prevT
		prevT = iv.T
	}
	for i := range s.Target {
		if k := readingSecond(s.Target[i].T); k <= n && rows[k-1].target == nil {
			rows[k-1].target = &s.Target[i]
		}
	}
	for i := range s.DB {
		if k := readingSecond(s.DB[i].T); k <= n && rows[k-1].db == nil && !s.DB[i].Missing {
			rows[k-1].db = &s.DB[i]
		}
	}
	return rows
}

// intervalSecond is the second an interval ending at t falls in; the
// slack absorbs a driver's tick arriving a little late.
func intervalSecond(t float64) int { return max(1, int(math.Ceil(t-0.05))) }

// readingSecond is the second boundary nearest to a reading at t.
func readingSecond(t float64) int { return max(1, int(math.Round(t))) }

func (r sampleRow) driverFields() []string {
	if r.iv == nil {
		return []string{"", "", ""}
	}
	rps := r.iv.RPS(r.ivLen)
	p99 := ""
	if r.iv.P99MS > 0 {
		p99 = num(r.iv.P99MS, 2)
	}
	return []string{num(rps, 1), strconv.FormatInt(r.iv.Errors, 10), p99}
}

func (r sampleRow) containerFields() []string {
	c := r.target
	if c == nil {
		return []string{"", "", "", ""}
	}
	return []string{num(c.CPUCores, 3), num(c.CPUPctOfLimit, 1),
		strconv.FormatUint(c.ThrottledPeriods, 10), strconv.FormatUint(c.MemBytes, 10)}
}

func (r sampleRow) dbFields() []string {
	d := r.db
	if d == nil {
		return []string{"", "", "", "", ""}
	}
	return []string{strconv.Itoa(d.Total), strconv.Itoa(d.Active), strconv.Itoa(d.Idle),
		strconv.Itoa(d.IdleInTx), num(d.TPS, 1)}
}

// num formats v with prec decimals.
func num(v float64, prec int) string {
	return strconv.FormatFloat(v, 'f', prec, 64)
}
