package report

import (
	"fmt"
	"io"
	"slices"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// CompareOptions tune Compare.
type CompareOptions struct {
	// Gates fail the comparison (see Gate); none means report only.
	Gates []Gate
	// Alpha is the significance level of Welch's t-test (default 0.05).
	// When both cells have repetitions, a gate trips only on a significant
	// change.
	Alpha float64
}

// Comparison is run B measured against run A, cell by cell.
type Comparison struct {
	RunA, RunB string
	Rows       []CompareRow
	// OnlyA and OnlyB list cell keys measured in one run only.
	OnlyA, OnlyB []string
	// Tripped lists every gate crossed, per cell; empty means the gate
	// passed.
	Tripped []Trip
}

// CompareRow is one configuration found (ok) in both runs.
type CompareRow struct {
	Key    string
	Deltas []Delta
}

// Delta is one metric's change. Pct is percent of A (percentage points for
// errors). P is Welch's two-sided p-value when Tested.
type Delta struct {
	Metric Metric
	A, B   float64
	Pct    float64
	P      float64
	Tested bool
}

// Trip is a gate crossed by one cell.
type Trip struct {
	Gate  Gate
	Cell  string
	Delta Delta
}

// Compare matches the ok cells of a and b by configuration (CPU limit, web
// threads, pool size and load model) and reports each metric's change and
// which gates tripped.
func Compare(a, b *results.Run, opts CompareOptions) (*Comparison, error) {
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	if opts.Alpha < 0 || opts.Alpha >= 1 {
		return nil, sweep.BadInput("alpha", "%v is outside 0 up to below 1", opts.Alpha)
	}
	ca, cb := okCells(a), okCells(b)
	cmp := &Comparison{RunA: a.RunID, RunB: b.RunID}
	for _, key := range sortedKeys(keySet(ca)) {
		cellB, ok := cb[key]
		if !ok {
			cmp.OnlyA = append(cmp.OnlyA, key)
			continue
		}
		row := CompareRow{Key: key}
		for _, m := range compareMetrics {
			row.Deltas = append(row.Deltas, delta(m, ca[key], cellB))
		}
		cmp.Rows = append(cmp.Rows, row)
		cmp.Tripped = append(cmp.Tripped, trips(key, row, opts)...)
	}
	for _, key := range sortedKeys(keySet(cb)) {
		if _, ok := ca[key]; !ok {
			cmp.OnlyB = append(cmp.OnlyB, key)
		}
	}
	if len(cmp.Rows) == 0 {
		return nil, sweep.BadInput("report", "runs %s and %s share no measured configuration", a.RunID, b.RunID)
	}
	return cmp, nil
}

func okCells(run *results.Run) map[string]*Cell {
	out := map[string]*Cell{}
	for _, rc := range run.Cells {
		c := summarise(rc, run.Service, poolShape(run), DefaultOptions())
		if c.Status != results.StatusOK {
			continue
		}
		key := fmt.Sprintf("cpu %g, web %d, pool %d, %s", c.CPUs, c.WebThreads, c.DBPool, c.Load)
		if c.Baseline {
			key += ", baseline"
		}
		out[key] = c
	}
	return out
}

func keySet(m map[string]*Cell) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func samples(c *Cell, m Metric) []float64 {
	xs := make([]float64, len(c.reps))
	for i, r := range c.reps {
		switch m {
		case MetricRPS:
			xs[i] = r.RPS
		case MetricP99:
			xs[i] = r.LatencyMS.P99
		default:
			xs[i] = 100 * r.ErrorRate
		}
	}
	return xs
}

func delta(m Metric, a, b *Cell) Delta {
	d := Delta{Metric: m, A: a.value(m).Mean, B: b.value(m).Mean}
	switch {
	case m == MetricErrors:
		d.Pct = d.B - d.A
	case d.A != 0:
		d.Pct = 100 * (d.B - d.A) / d.A
	}
	d.P, d.Tested = welch(samples(a, m), samples(b, m))
	return d
}

func trips(key string, row CompareRow, opts CompareOptions) []Trip {
	var out []Trip
	for _, g := range opts.Gates {
		i := slices.Index(compareMetrics, g.Metric)
		d := row.Deltas[i]
		if g.trips(d.Pct) && (!d.Tested || d.P < opts.Alpha) {
			out = append(out, Trip{Gate: g, Cell: key, Delta: d})
		}
	}
	return out
}

// WriteCompare prints the comparison table, the unmatched cells and the
// tripped gates.
func WriteCompare(w io.Writer, cmp *Comparison) error {
	t := table{
		Title:  fmt.Sprintf("Run %s vs run %s", cmp.RunB, cmp.RunA),
		Header: []string{"cell", "RPS A", "RPS B", "Δ RPS", "P99 A", "P99 B", "Δ P99", "Δ errors (pp)", "p (RPS, P99)"},
		Note:   "Δ in % of A (errors in percentage points); p is Welch's t-test, '-' without repetitions",
	}
	for _, r := range cmp.Rows {
		rps, p99, errs := r.Deltas[0], r.Deltas[1], r.Deltas[2]
		t.Rows = append(t.Rows, []string{r.Key, fmt.Sprintf("%.0f", rps.A), fmt.Sprintf("%.0f", rps.B),
			fmt.Sprintf("%+.1f %%", rps.Pct), fmt.Sprintf("%.2f", p99.A), fmt.Sprintf("%.2f", p99.B),
			fmt.Sprintf("%+.1f %%", p99.Pct), fmt.Sprintf("%+.2f", errs.Pct), pValues(rps, p99)})
	}
	if err := terminalTable(w, t); err != nil {
		return err
	}
	for _, k := range cmp.OnlyA {
		fmt.Fprintf(w, "only in %s: %s\n", cmp.RunA, k)
	}
	for _, k := range cmp.OnlyB {
		fmt.Fprintf(w, "only in %s: %s\n", cmp.RunB, k)
	}
	for _, tr := range cmp.Tripped {
		fmt.Fprintf(w, "REGRESSION %s: %s changed %+.1f\n", tr.Gate, tr.Cell, tr.Delta.Pct)
	}
	return nil
}

func pValues(ds ...Delta) string {
	s := ""
	for i, d := range ds {
		if i > 0 {
			s += ", "
		}
		if d.Tested {
			s += fmt.Sprintf("%.3f", d.P)
		} else {
			s += "-"
		}
	}
	return s
}

// CompareDirs reads the runs in dirA and dirB (results.LoadRun) and
// compares them (Compare).
func CompareDirs(dirA, dirB string, opts CompareOptions) (*Comparison, error) {
	a, err := results.LoadRun(dirA)
	if err != nil {
		return nil, err
	}
	b, err := results.LoadRun(dirB)
	if err != nil {
		return nil, err
	}
	return Compare(a, b, opts)
}
