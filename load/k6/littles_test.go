package k6

import (
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// TestLittlesOnRealK6 checks Little's law on real k6 outputs of closed
// models. k6's users spend part of each iteration between requests (the
// script's JavaScript, checks, JSON), so requests × mean latency fill
// only part of the users' time and the plain ratio sits below 1 (0.75 to
// 0.93 here, lowest where latencies are sub-millisecond); the iteration
// figures account for that, and what remains is the idle users of k6's
// stop phase, well under the tolerance. None of these is flagged.
func TestLittlesOnRealK6(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"summary-export.json", "summary-export-threshold-fail.json",
		"handle-summary.json", "summary-export-ops.json", "summary-export-stopped.json"} {
		t.Run(name, func(t *testing.T) {
			m := parseFixture(t, name)
			rec := results.Record{Load: results.LoadInfo{Driver: "k6", Model: "closed", VUs: m.VUsMax}, Measurement: m}
			rec.SetLittles()
			if rec.LittlesRatio == nil {
				t.Fatal("no Little's ratio for a closed model")
			}
			ratio, expected := *rec.LittlesRatio, *rec.LittlesExpected
			t.Logf("VUs %d, %d requests over %.3f s, mean %.3f ms: ratio %.4f, expected %.4f, ratio/expected %.4f",
				m.VUsMax, m.Requests, m.DurationS, m.LatencyMS.Avg, ratio, expected, ratio/expected)
			if ratio >= 0.95 || ratio < 0.7 {
				t.Errorf("ratio %.4f: k6's time between requests should put it in [0.7, 0.95)", ratio)
			}
			if r := ratio / expected; r < 0.97 || r > 1.001 {
				t.Errorf("ratio/expected %.4f: only the stop phase's idle users should remain", r)
			}
			if off := rec.LittlesOff(); off != "" {
				t.Errorf("flagged: %s", off)
			}
		})
	}
}
