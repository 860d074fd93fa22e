package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sweep-tool/sweep/results"
)

// cellBreakdown summarises the ok repetitions' latency breakdowns: every
// statistic is the mean over the repetitions, as the cell's P99 is, except
// Min and Max, which are the extremes, and NewConnections, the rounded
// mean. It is nil unless every ok repetition has a breakdown.
func cellBreakdown(reps []results.Rep) *results.Breakdown {
	if len(reps) == 0 {
		return nil
	}
	var out results.Breakdown
	var conns int64
	for i, r := range reps {
		if r.Breakdown == nil {
			return nil
		}
		src, dst := phaseRefs(r.Breakdown), phaseRefs(&out)
		for j := range dst {
			addLatency(dst[j], *src[j], i == 0)
		}
		conns += r.Breakdown.NewConnections
	}
	n := float64(len(reps))
	for _, l := range phaseRefs(&out) {
		for _, f := range []*float64{&l.Avg, &l.P50, &l.P75, &l.P90, &l.P95, &l.P99} {
			*f = math.Round(*f/n*1000) / 1000
		}
	}
	out.NewConnections = int64(math.Round(float64(conns) / n))
	return &out
}

// phaseRefs points at b's phases in results.Breakdown.Phases' order.
func phaseRefs(b *results.Breakdown) []*results.Latency {
	return []*results.Latency{&b.Connect, &b.TLS, &b.Sending, &b.Waiting, &b.Receiving}
}

// addLatency sums l into acc (extremes for Min and Max); first starts the
// sum.
func addLatency(acc *results.Latency, l results.Latency, first bool) {
	if first {
		*acc = l
		return
	}
	acc.Avg += l.Avg
	acc.P50 += l.P50
	acc.P75 += l.P75
	acc.P90 += l.P90
	acc.P95 += l.P95
	acc.P99 += l.P99
	acc.Min, acc.Max = min(acc.Min, l.Min), max(acc.Max, l.Max)
}

// breakdownTables has one table per CPU limit whose cells carry a latency
// breakdown; none when no cell does.
func breakdownTables(rep *Report) []table {
	var out []table
	for _, cr := range rep.PerCPU {
		t := table{
			Title: fmt.Sprintf("CPU %g: latency breakdown (ms)", cr.CPUs),
			Header: []string{"cell", "connect p50", "connect p99", "waiting p50", "waiting p99",
				"receiving p50", "receiving p99", "new connections"},
			Note: "connect is 0 for a request on a kept-alive connection; waiting is the time to first byte " +
				"(the server's processing); receiving runs from the first byte to the end of the body; " +
				"with repetitions, the mean of each figure",
		}
		for _, c := range cr.Cells {
			if b := c.Breakdown; b != nil {
				t.Rows = append(t.Rows, []string{cellLabel(c), ms(b.Connect.P50), ms(b.Connect.P99),
					ms(b.Waiting.P50), ms(b.Waiting.P99), ms(b.Receiving.P50), ms(b.Receiving.P99),
					newConns(b.NewConnections)})
			}
		}
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func ms(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }

func newConns(n int64) string {
	if n == 0 {
		return "-" // the driver could not tell
	}
	return strconv.FormatInt(n, 10)
}

// addBreakdown adds the breakdown.<phase>.<stat>_ms columns and
// breakdown.new_connections to a results.csv row.
func addBreakdown(row map[string]string, b *results.Breakdown) {
	if b == nil {
		return
	}
	for _, p := range b.Phases() {
		pre, l := "breakdown."+p.Name+".", p.Latency
		row[pre+"avg_ms"], row[pre+"p50_ms"], row[pre+"p90_ms"] = num(l.Avg), num(l.P50), num(l.P90)
		row[pre+"p99_ms"], row[pre+"max_ms"] = num(l.P99), num(l.Max)
	}
	row["breakdown.new_connections"] = strconv.FormatInt(b.NewConnections, 10)
}
