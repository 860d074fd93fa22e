package limit

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

func ptr[T any](v T) *T { return &v }

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		level      Level
	}{
		{"cpu at its limit", BottleneckTargetCPU, Level{TargetCPUPct: ptr(96.0), SuccessRate: 0.5}},
		{"throttled", BottleneckTargetCPU, Level{TargetCPUPct: ptr(60.0), Signals: Signals{TargetThrottledPct: 35}}},
		{"pool", BottleneckPool, Level{TargetCPUPct: ptr(50.0), Signals: Signals{DBActivePeak: 4, DBPool: 4}}},
		{"pooler cpu", BottleneckPoolerCPU, Level{TargetCPUPct: ptr(60.0), Signals: Signals{DBActivePeak: 8, DBPool: 8,
			Pooler: &PoolerSignals{CPUCores: ptr(0.9), ClientsWaitingPeak: 12, ServersActivePeak: 8}}}},
		{"pooler busy but nobody waits", BottleneckNone, Level{SuccessRate: 1, TargetCPUPct: ptr(60.0), DBSessionsPeak: ptr(3),
			Signals: Signals{DBActivePeak: 3, DBPool: 8, Pooler: &PoolerSignals{CPUCores: ptr(0.95), ServersActivePeak: 3}}}},
		{"pooler's servers all busy", BottleneckPool, Level{TargetCPUPct: ptr(60.0), Signals: Signals{DBActivePeak: 3, DBPool: 4,
			Pooler: &PoolerSignals{CPUCores: ptr(0.3), ClientsWaitingPeak: 5, ServersActivePeak: 4}}}},
		{"pooler's clients wait, servers not all busy", BottleneckNone, Level{SuccessRate: 1, TargetCPUPct: ptr(60.0),
			Signals: Signals{DBActivePeak: 3, DBPool: 4, Pooler: &PoolerSignals{ClientsWaitingPeak: 5, ServersActivePeak: 3}}}},
		{"host contended, nothing else", BottleneckHostCPU, Level{SuccessRate: 1, TargetCPUPct: ptr(30.0),
			Signals: Signals{HostCPUPressure: ptr(0.9)}}},
		{"host contended, target at its limit", BottleneckTargetCPU, Level{SuccessRate: 1, TargetCPUPct: ptr(95.0),
			Signals: Signals{HostCPUPressure: ptr(0.9)}}},
		{"host lightly contended", BottleneckNone, Level{SuccessRate: 1, TargetCPUPct: ptr(30.0),
			Signals: Signals{HostCPUPressure: ptr(0.3)}}},
		{"db cpu", BottleneckDBCPU, Level{DBCPUPct: ptr(90.0), Signals: Signals{DBActivePeak: 3, DBPool: 4}}},
		{"errors", BottleneckErrors, Level{SuccessRate: 0.95, Signals: Signals{Errors: map[string]int64{"http_503": 5}}}},
		{"run failed", BottleneckErrors, Level{SuccessRate: 1, Signals: Signals{Failed: "target died"}}},
		{"dropped", BottleneckLoadGenerator, Level{SuccessRate: 1, Signals: Signals{Dropped: 12}}},
		{"nothing", BottleneckNone, Level{SuccessRate: 1, TargetCPUPct: ptr(40.0), Why: "p99<=20ms (got 25.00ms)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := Classify(tc.level)
			if b.Name != tc.want || b.Evidence == "" {
				t.Errorf("Classify = %+v, want %s with evidence", b, tc.want)
			}
		})
	}
}

func TestErrorEvidenceNamesTheLargestClasses(t *testing.T) {
	t.Parallel()
	l := Level{SuccessRate: 0.9, Signals: Signals{Errors: map[string]int64{
		"timeout": 2, "http_503": 50, "connection": 9, "http_500": 9}}}
	got := Classify(l).Evidence
	if want := "10.00% of requests failed (http_503 50, connection 9, http_500 9)"; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
}

func TestPoolerEvidence(t *testing.T) {
	t.Parallel()
	l := Level{TargetCPUPct: ptr(70.0), Signals: Signals{DBActivePeak: 4, DBPool: 4,
		Pooler: &PoolerSignals{CPUCores: ptr(0.97), ClientsWaitingPeak: 30, ServersActivePeak: 4}}}
	if got, want := Classify(l).Evidence, "pooler CPU 0.97 cores (one thread), 30 clients waiting at peak, 4 server connections busy"; got != want {
		t.Errorf("evidence %q, want %q", got, want)
	}
	l.Signals.Pooler.CPUCores = ptr(0.4)
	if got, want := Classify(l), (Bottleneck{Name: BottleneckPool,
		Evidence: "4 DB sessions busy at once with a pool of 4, 30 clients waiting at the pooler"}); got != want {
		t.Errorf("Classify = %+v, want %+v", got, want)
	}
}

func TestHostEvidence(t *testing.T) {
	t.Parallel()
	l := Level{SuccessRate: 1, TargetCPUPct: ptr(27.0), DBSessionsPeak: ptr(4), Signals: Signals{HostCPUPressure: ptr(0.912),
		DBPool: 8, Pooler: &PoolerSignals{CPUCores: ptr(0.21)}}}
	want := "tasks on the host waited for a CPU in 91% of the phase (PSI); below their limits: target CPU 27%, " +
		"throttled in 0% of periods; 0 of 8 pool sessions busy at peak; pooler CPU 0.21 cores, 0 clients waiting at peak"
	if got := Classify(l); got.Name != BottleneckHostCPU || got.Evidence != want {
		t.Errorf("Classify = %+v, want host-cpu with %q", got, want)
	}
}

func TestNoneEvidenceListsWhatStayedBelow(t *testing.T) {
	t.Parallel()
	l := Level{SuccessRate: 1, TargetCPUPct: ptr(51.0), DBSessionsPeak: ptr(2),
		Signals: Signals{TargetThrottledPct: 12, DBActivePeak: 1, DBPool: 2}}
	want := "no measured resource at its limit (target CPU 51%, throttled in 12% of periods; " +
		"1 of 2 pool sessions busy at peak): the tail grew with queueing inside the target, e.g. for its web threads"
	if got := Classify(l); got.Name != BottleneckNone || got.Evidence != want {
		t.Errorf("Classify = %+v, want none with %q", got, want)
	}
}

func TestFromRecord(t *testing.T) {
	t.Parallel()
	rec := results.Record{Status: results.StatusOK, Cell: results.CellInfo{DBPool: 4},
		Measurement: results.Measurement{Requests: 1000, ErrorRate: 0.02, DurationS: 2.01,
			LatencyMS: results.Latency{P99: 12}, DroppedIterations: 3},
		Resources: map[string]results.ResourceStats{
			"app": {CPUPctOfLimitMean: 97, Periods: 20, ThrottledPeriods: 15, Samples: 2},
			"db":  {CPUPctOfLimitMean: 12.5, Samples: 1},
		},
		DB: &results.DBStats{Sessions: results.DBSessions{TotalMean: 3.5, TotalPeak: 4, ActivePeak: 2}, Samples: 2},
	}
	l := FromRecord(rec, Stack{Target: "app", DB: "db"})
	switch {
	case l.Requests != 1000 || l.SuccessRate != 0.98 || l.ElapsedS != 2.01 || l.LatencyMS.P99 != 12:
		t.Errorf("measurement: %+v", l)
	case l.TargetCPUPct == nil || *l.TargetCPUPct != 97 || l.Signals.TargetThrottledPct != 75:
		t.Errorf("target: %v, throttled %v", l.TargetCPUPct, l.Signals.TargetThrottledPct)
	case l.DBCPUPct == nil || *l.DBCPUPct != 12.5 || *l.DBSessionsMean != 3.5 || *l.DBSessionsPeak != 4:
		t.Errorf("database: %+v", l)
	case l.Signals.DBActivePeak != 2 || l.Signals.DBPool != 4 || l.Signals.Dropped != 3 || l.Signals.Failed != "":
		t.Errorf("signals: %+v", l.Signals)
	}
	refused := FromRecord(results.Record{Status: results.StatusOK, Measurement: results.Measurement{Requests: 1000,
		ErrorRate: 0.02, ConnectErrors: 250}}, Stack{Target: "app", DB: "db"})
	if want := 980.0 / 1250; refused.Requests != 1000 || math.Abs(refused.SuccessRate-want) > 1e-12 {
		t.Errorf("%d requests, success rate %v, want 1000 and %v (attempts that did not connect failed)",
			refused.Requests, refused.SuccessRate, want)
	}
	bare := FromRecord(results.Record{Status: results.StatusFailed, Reason: "boom", PhasesS: map[string]float64{"measure": 1.5},
		Resources: map[string]results.ResourceStats{"db": {Samples: 0}},
		DB:        &results.DBStats{Samples: 1, SamplesMissing: 1}}, Stack{Target: "app", DB: "db"})
	if bare.TargetCPUPct != nil || bare.DBCPUPct != nil || bare.DBSessionsMean != nil || bare.ElapsedS != 1.5 ||
		bare.Signals.Failed != "boom" {
		t.Errorf("a failed record without readings: %+v", bare)
	}
}

// tableResult is a search over three levels: two hold, one fails on the
// tail with the target's CPU at its limit.
func tableResult() Result {
	mk := func(level, step int, p99 float64, cpu float64, ok bool, why string) Level {
		return Level{Level: level, Step: step, Requests: int64(level) * 1500, SuccessRate: 1,
			LatencyMS:    results.Latency{Min: 0.41, Avg: p99 / 4, P50: p99 / 5, P75: p99 / 3, P90: p99 / 2, P99: p99, Max: p99 * 3},
			TargetCPUPct: ptr(cpu), DBSessionsMean: ptr(1.5), DBSessionsPeak: ptr(2), DBCPUPct: ptr(7.25),
			ElapsedS: 2.0, SLOOK: ok, Why: why, Signals: Signals{TargetThrottledPct: cpu / 2, DBPool: 2}}
	}
	levels := []Level{mk(1, 1, 4.2, 38, true, ""), mk(2, 3, 11.8, 71, true, ""),
		mk(4, 2, 31.5, 99, false, "p99<=20ms (got 31.50ms)")}
	b := Classify(levels[2])
	return Result{SafeLimit: &SafeLimit{Model: ModelVUs, Level: 2}, Levels: levels, Bottleneck: &b,
		SLO: SLO{{"p99", 20}}, Config: config(1, 64, 4, 4), Stopped: "bracketed: 2 holds, 4 fails"}
}

func TestWriteTableGolden(t *testing.T) {
	t.Parallel()
	none := tableResult()
	none.Levels, none.SafeLimit = none.Levels[2:], nil
	none.Stopped = "the first level fails"
	for name, r := range map[string]Result{"table": tableResult(), "table-none": none} {
		var buf bytes.Buffer
		if err := WriteTable(&buf, r); err != nil {
			t.Fatal(err)
		}
		testenv.Golden(t, filepath.Join("testdata", name+".golden"), buf.Bytes())
	}
}

func TestResultJSONKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "limit.json")
	if err := results.WriteJSONAtomic(path, tableResult()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"safe_limit": {`, `"model": "vus"`, `"level": 2`, `"success_rate": 1`,
		`"p75": `, `"target_cpu_pct": 99`, `"db_sessions_mean": 1.5`, `"db_sessions_peak": 2`, `"db_cpu_pct": 7.25`,
		`"elapsed_s": 2`, `"slo_ok": false`, `"why": "p99`, `"slo": "p99`, `"bottleneck": {`, `"name": "target-cpu"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("limit.json lacks %s:\n%s", key, b)
		}
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.SLO.String() != "p99<=20ms" || back.Levels[2].Why != "p99<=20ms (got 31.50ms)" || back.SafeLimit.Level != 2 {
		t.Errorf("limit.json reads back as %+v", back)
	}
}

// TestEvidenceWithNothingToList: no parentheses when there is nothing to
// list, and no pool figure without a pool size.
func TestEvidenceWithNothingToList(t *testing.T) {
	t.Parallel()
	if got, want := noneEvidence(Level{SuccessRate: 1}), "no measured resource at its limit: the tail grew with queueing inside the target, e.g. for its web threads"; got != want {
		t.Errorf("noneEvidence = %q, want %q", got, want)
	}
	if got := noneEvidence(Level{SuccessRate: 1, DBSessionsPeak: ptr(3), Signals: Signals{DBActivePeak: 3}}); strings.Contains(got, "pool sessions") {
		t.Errorf("noneEvidence without a pool size = %q, want no pool figure", got)
	}
	if got, want := errorEvidence(Level{SuccessRate: 0.75}), "25.00% of requests failed"; got != want {
		t.Errorf("errorEvidence = %q, want %q", got, want)
	}
}
