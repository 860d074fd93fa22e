package repeat

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/memstack"
	"github.com/sweep-tool/sweep/report"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// figures plays, per cell, a list of RPS values (one per repetition, the
// last repeated) at a fixed p99, and counts the measured phases; it keeps
// the run's log lines too.
type figures struct {
	mu   sync.Mutex
	rps  map[string][]float64
	p99  map[string]float64
	runs map[string]int
	log  strings.Builder
}

func (f *figures) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.log.Write(p)
}

// logged checks that the run's log has each of lines.
func (f *figures) logged(t *testing.T, lines ...string) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range lines {
		if !strings.Contains(f.log.String(), l) {
			t.Errorf("the log has no %q:\n%s", l, f.log.String())
		}
	}
}

func (f *figures) Name() string { return "fake" }
func (f *figures) Run(_ context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	if req.Warmup {
		return results.Measurement{}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	id := filepath.Base(filepath.Dir(req.Dir)) // cells/<id>/r<N>
	vals := f.rps[id]
	v := vals[min(f.runs[id], len(vals)-1)]
	f.runs[id]++
	return results.Measurement{Requests: int64(v * 10), RPS: v, DurationS: 10,
		LatencyMS: results.Latency{P50: 1, P99: f.p99[id]}}, nil
}

var target = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}))

// twoPairs is one CPU limit with three pairs: (1,2) and (2,2) within the
// noise band of each other on RPS at one repetition, (3,2) far behind.
func twoPairs(t *testing.T, max int) (sweep.Spec, string) {
	t.Helper()
	return grid(t, []float64{1}, []float64{1, 2, 3}, max)
}

// grid is a run directory with the plan of cpus × web multipliers × pool
// multiplier 2, repeated automatically up to max.
func grid(t *testing.T, cpus, webMult []float64, max int) (sweep.Spec, string) {
	t.Helper()
	spec := sweep.Spec{CPUs: cpus, WebMult: webMult, DBMult: []float64{2}, Service: "app",
		WebEnv: "W", PoolEnv: "P", URL: target.URL, ReadyPath: "/health", ReadyTimeout: sweep.Duration(time.Second),
		Duration: sweep.Duration(10 * time.Second), Load: sweep.LoadSpec{VUs: 2}, Driver: "builtin",
		Repeat: 1, Order: sweep.OrderGrid, RepeatAuto: true, MaxRepeat: max}
	dir := t.TempDir()
	meta := results.Meta{SchemaVersion: results.SchemaVersion, RunID: "r"}
	meta.Spec, _ = json.Marshal(spec)
	for _, c := range spec.Cells() {
		meta.Cells = append(meta.Cells, c.Info())
	}
	if err := results.WriteJSONAtomic(filepath.Join(dir, results.MetaFile), meta); err != nil {
		t.Fatal(err)
	}
	return spec, dir
}

func runWith(t *testing.T, f *figures, max int) ([]Tie, string) {
	t.Helper()
	spec, dir := twoPairs(t, max)
	return runSpec(t, spec, dir, f, max)
}

func runSpec(t *testing.T, spec sweep.Spec, dir string, f *figures, max int) ([]Tie, string) {
	t.Helper()
	r := &sweep.Runner{Spec: spec, Dir: dir, Stack: &memstack.Stack{}, Driver: f, Log: f}
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	ties, _, err := Run(t.Context(), r, Options{Max: max, Report: report.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return ties, dir
}

func newFigures() *figures {
	return &figures{
		// 3 % apart: one repetition each cannot tell them apart (5 % band);
		// three repetitions 0.4 % apart can.
		rps:  map[string][]float64{"cpu_1__web_1__db_2": {1000, 1004, 996}, "cpu_1__web_2__db_4": {1030, 1026, 1034}, "cpu_1__web_3__db_6": {500}},
		p99:  map[string]float64{"cpu_1__web_1__db_2": 10, "cpu_1__web_2__db_4": 15, "cpu_1__web_3__db_6": 40},
		runs: map[string]int{},
	}
}

// TestRepeatsUntilSeparated: the throughput tie is repeated until the two
// cells' intervals part (three repetitions: at two, t with one degree of
// freedom is still too wide) and a re-run would no longer pick the
// slower often enough for the calibrated set (also three: from two
// repetitions of two cells on, the report measures the noise from them,
// about 0.3 %, and 3 % apart a re-run never picks the slower), and the
// pair far behind is never repeated.
func TestRepeatsUntilSeparated(t *testing.T) {
	t.Parallel()
	f := newFigures()
	f.rps["cpu_1__web_1__db_2"] = append(f.rps["cpu_1__web_1__db_2"], 1000)
	f.rps["cpu_1__web_2__db_4"] = append(f.rps["cpu_1__web_2__db_4"], 1030)
	ties, _ := runWith(t, f, 6)
	want := map[string]int{"cpu_1__web_1__db_2": 3, "cpu_1__web_2__db_4": 3, "cpu_1__web_3__db_6": 1}
	separated(t, f, ties, want)
	f.logged(t, "repeat: cpu_1__web_2__db_4 r2: throughput's set of 2 pairs, not yet separated",
		"repeat: cpu_1__web_1__db_2 r3: throughput's set of 2 pairs, not yet separated")
}

// TestTiesRemainAtTheCap: two cells that stay within noise are repeated
// up to the cap, and the tie is reported.
func TestTiesRemainAtTheCap(t *testing.T) {
	t.Parallel()
	f := newFigures()
	f.rps["cpu_1__web_1__db_2"] = []float64{1000, 1040, 990, 1035}
	f.rps["cpu_1__web_2__db_4"] = []float64{1030, 995, 1040, 1000}
	ties, dir := runWith(t, f, 4)
	if f.runs["cpu_1__web_1__db_2"] != 4 || f.runs["cpu_1__web_2__db_4"] != 4 || f.runs["cpu_1__web_3__db_6"] != 1 {
		t.Errorf("runs %v, want the tied cells at the cap of 4", f.runs)
	}
	got := fmt.Sprint(ties)
	if len(ties) != 1 || ties[0].Profile != "throughput" || !strings.Contains(got, "[1 2]") || !strings.Contains(got, "[2 2]") {
		t.Errorf("ties %s, want throughput's (1,2)/(2,2)", got)
	}
	// The report names the tie as one that remained at the cap.
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := report.Build(run, report.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := report.WriteMarkdown(&md, rep, nil, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "(a tie that remained after up to 4 repetitions)") {
		t.Errorf("report.md does not name the remaining tie:\n%s", md.String())
	}
}

// TestLonePickConfirmed: a pick every profile makes alone, far ahead of
// the rest, is measured once more (the best of noisy figures may have
// been lucky) and, holding, no further; the others never again.
func TestLonePickConfirmed(t *testing.T) {
	t.Parallel()
	f := &figures{
		rps:  map[string][]float64{"cpu_1__web_1__db_2": {1000, 990}, "cpu_1__web_2__db_4": {600}, "cpu_1__web_3__db_6": {300}},
		p99:  map[string]float64{"cpu_1__web_1__db_2": 10, "cpu_1__web_2__db_4": 30, "cpu_1__web_3__db_6": 90},
		runs: map[string]int{},
	}
	ties, _ := runWith(t, f, 5)
	want := map[string]int{"cpu_1__web_1__db_2": 2, "cpu_1__web_2__db_4": 1, "cpu_1__web_3__db_6": 1}
	separated(t, f, ties, want)
}

// TestInvertedCellMeasuredAgain: pair 2×2 served 800 RPS at CPU 1 and
// 400 at CPU 2, more CPU doing worse by far more than the noise; one
// figure of the two is off, and both are measured once more though the
// pair is in no set (1×2 leads everywhere). Holding (450), they are not
// measured again. Pair 1×2, its pick confirmed, is not inverted.
func TestInvertedCellMeasuredAgain(t *testing.T) {
	t.Parallel()
	f := &figures{
		rps: map[string][]float64{"cpu_1__web_1__db_2": {1000}, "cpu_1__web_2__db_4": {800},
			"cpu_2__web_2__db_4": {1900}, "cpu_2__web_4__db_8": {400, 450}},
		p99:  map[string]float64{"cpu_1__web_1__db_2": 10, "cpu_1__web_2__db_4": 20, "cpu_2__web_2__db_4": 8, "cpu_2__web_4__db_8": 15},
		runs: map[string]int{},
	}
	spec, dir := grid(t, []float64{1, 2}, []float64{1, 2}, 4)
	ties, _ := runSpec(t, spec, dir, f, 4)
	want := map[string]int{"cpu_1__web_1__db_2": 2, "cpu_2__web_2__db_4": 2, "cpu_1__web_2__db_4": 2, "cpu_2__web_4__db_8": 2}
	separated(t, f, ties, want)
	inverted := "its pair's RPS at CPU 2 worse than at CPU 1, beyond the noise"
	f.logged(t, "repeat: cpu_1__web_2__db_4 r2: "+inverted, "repeat: cpu_2__web_4__db_8 r2: "+inverted,
		"repeat: cpu_1__web_1__db_2 r2: latency's pick, no other pair in its set: confirming it")
}

// separated checks that each cell was measured as often as want says and
// that no tie remained.
func separated(t *testing.T, f *figures, ties []Tie, want map[string]int) {
	t.Helper()
	for id, n := range want {
		if f.runs[id] != n {
			t.Errorf("%s measured %d times, want %d", id, f.runs[id], n)
		}
	}
	if len(ties) != 0 {
		t.Errorf("ties remained: %+v", ties)
	}
}

func TestCapBelowTwo(t *testing.T) {
	t.Parallel()
	spec, dir := twoPairs(t, 2)
	if _, err := Next(dir, spec.Cells(), Options{Max: 1}); err == nil || !strings.Contains(err.Error(), "at least 2") {
		t.Errorf("cap 1: %v", err)
	}
}

// TestRepeatsMeasureAtTheFidelityAsked: a halving run's further
// repetitions measure as its finals did, not at the spec's fidelity.
func TestRepeatsMeasureAtTheFidelityAsked(t *testing.T) {
	t.Parallel()
	spec, dir := twoPairs(t, 3)
	r := &sweep.Runner{Spec: spec, Dir: dir, Stack: &memstack.Stack{}, Driver: newFigures()}
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	final := &sweep.Fidelity{Round: 2, Warmup: time.Second, Duration: 10 * time.Second}
	step, err := Next(dir, spec.Cells(), Options{Max: 3, Report: report.DefaultOptions(), Fidelity: final})
	if err != nil || len(step.Jobs) != 2 {
		t.Fatalf("jobs %+v, %v; want the two tied cells", step.Jobs, err)
	}
	for _, j := range step.Jobs {
		if j.Fidelity != final || j.Rep != 2 {
			t.Errorf("job %s r%d at %+v, want r2 at the finals' fidelity", j.Cell.ID, j.Rep, j.Fidelity)
		}
	}
}
