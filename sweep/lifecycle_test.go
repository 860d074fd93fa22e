package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// TestRunLog pins the log lines a user reads in sweep.log: the one-line
// result of an ok cell (RPS, p99, errors in %), the retry of a failed one
// and its reason.
func TestRunLog(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.Retries = 1
	var log bytes.Buffer
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	d := measuredDriver{results.Measurement{Requests: 100, RPS: 12.34, ErrorRate: 0.0125,
		LatencyMS: results.Latency{P99: 5.678}}}
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{skewFor: "cpu_2__web_2__db_4"}, Driver: d,
		Log: &log, Now: func() time.Time { return at }}
	if _, err := r.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(log.String(), "\n")
	for _, want := range []string{
		"03:04:05 4 jobs, 0 already done",
		"03:04:05 cpu_1__web_1__db_2 r1: ok rps=12.3 p99=5.68ms errors=1.25%",
		"03:04:05 cpu_2__web_2__db_4 r1: retry 1 of 1 after: read back: target runs with cpus 99, asked 2",
		"03:04:05 cpu_2__web_2__db_4 r1: failed read back: target runs with cpus 99, asked 2",
	} {
		if !contains(lines, want) {
			t.Errorf("log lacks the line %q:\n%s", want, log.String())
		}
	}
	if n := strings.Count(log.String(), "retry"); n != 1 {
		t.Errorf("log has %d retries, want 1 (only the failing cell, once):\n%s", n, log.String())
	}
}

func contains(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

// TestPhaseTimes: each timed phase is recorded in seconds rounded to the
// millisecond. The clock here advances 1.23456789 s at every reading.
func TestPhaseTimes(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
	clock := time.Unix(0, 0)
	now := func() time.Time { clock = clock.Add(1234567890 * time.Nanosecond); return clock }
	sum, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &fakeDriver{}, Now: now}).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rec := sum.Records[0]
	for _, phase := range []string{"apply", "ready", "readback"} {
		if got := rec.PhasesS[phase]; got != 1.235 {
			t.Errorf("%s took %v s, want 1.235 (one tick, rounded to the ms)", phase, got)
		}
	}
}

func TestOverhead(t *testing.T) {
	t.Parallel()
	rec := func(status results.Status, apply, ready, readback, write float64) results.Record {
		return results.Record{Status: status,
			PhasesS: map[string]float64{"apply": apply, "ready": ready, "readback": readback, "write": write, "measure": 60}}
	}
	for _, tc := range []struct {
		name string
		recs []results.Record
		want float64
	}{
		{"none", nil, 0},
		{"only failed", []results.Record{rec(results.StatusFailed, 1, 1, 1, 1)}, 0},
		{"one", []results.Record{rec(results.StatusOK, 1, 2, 0.5, 0.25)}, 3.75},
		{"even count: mean of the middle two", []results.Record{
			rec(results.StatusOK, 30, 0, 0, 0), rec(results.StatusOK, 4, 0, 0, 0),
			rec(results.StatusOK, 1, 1, 0, 0), rec(results.StatusOK, 0, 0, 0.5, 0.5),
			rec(results.StatusFailed, 100, 0, 0, 0)}, 3},
		{"odd count: the middle one", []results.Record{
			rec(results.StatusOK, 30, 0, 0, 0), rec(results.StatusOK, 4, 0, 0, 0), rec(results.StatusOK, 1, 1, 0, 0)}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := overhead(tc.recs); got != tc.want {
				t.Errorf("overhead = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestCooldown: the pause comes between cells, never before the first.
func TestCooldown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		cooldown time.Duration
		want     []time.Duration
	}{
		{"none", 0, nil},
		{"between cells", 3 * time.Second, []time.Duration{3 * time.Second, 3 * time.Second, 3 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.Cooldown = Duration(tc.cooldown)
			var slept []time.Duration
			r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: &fakeDriver{},
				Sleep: func(_ context.Context, d time.Duration) { slept = append(slept, d) }}
			if _, err := r.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(slept, tc.want) {
				t.Errorf("slept %v, want %v", slept, tc.want)
			}
		})
	}
}

// phaseDriver records every phase it is asked to run.
type phaseDriver struct{ reqs []LoadRequest }

func (d *phaseDriver) Name() string { return "fake" }
func (d *phaseDriver) Run(_ context.Context, req LoadRequest) (results.Measurement, error) {
	d.reqs = append(d.reqs, req)
	return results.Measurement{Requests: 100, RPS: 10}, nil
}

// TestWarmup: a warm-up of the given length precedes the measured phase;
// none runs with --warmup 0.
func TestWarmup(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		warmup time.Duration
		want   []string
	}{
		{"none", 0, []string{"measure 5s"}},
		{"two seconds", 2 * time.Second, []string{"warm-up 2s", "measure 5s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.CPUs, spec.WebMult = []float64{1}, []float64{1}
			spec.Warmup, spec.Duration = Duration(tc.warmup), Duration(5*time.Second)
			d := &phaseDriver{}
			if _, err := (&Runner{Spec: spec, Dir: t.TempDir(), Stack: &fakeStack{}, Driver: d}).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, req := range d.reqs {
				kind := "measure"
				if req.Warmup {
					kind = "warm-up"
				}
				got = append(got, kind+" "+req.Duration.String())
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("phases %v, want %v", got, tc.want)
			}
		})
	}
}

// namedStack is a fake stack that says its name in its log and counts how
// often it was taken down.
type namedStack struct {
	fakeStack
	name  string
	downs int
}

func (s *namedStack) Logs(context.Context, int) (string, error) { return s.name + " log\n", nil }
func (s *namedStack) Down(context.Context) error                { s.downs++; return nil }

// TestVariantsRunOneStackAtATime: cells of a variant run on its stack; the
// previous variant's stack is taken down when the next one starts, and a
// failed cell keeps the log of the stack it ran on.
func TestVariantsRunOneStackAtATime(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs = []float64{1}
	spec.Variants = []Variant{{Name: "a", Files: []string{"a.yaml"}}, {Name: "b", Files: []string{"b.yaml"}}}
	a := &namedStack{name: "a"}
	b := &namedStack{name: "b", fakeStack: fakeStack{skewFor: "cpu_1__web_2__db_4__variant_b"}}
	dir := t.TempDir()
	r := &Runner{Spec: spec, Dir: dir, Stack: &namedStack{name: "default"}, Variants: map[string]Stack{"a": a, "b": b},
		Driver: &fakeDriver{}}
	sum, err := r.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Records) != 4 || sum.Failed() != 1 {
		t.Fatalf("%d records, %d failed; want 4 and 1", len(sum.Records), sum.Failed())
	}
	if got := [][]string{a.applied, b.applied}; !reflect.DeepEqual(got, [][]string{
		{"cpu_1__web_1__db_2__variant_a", "cpu_1__web_2__db_4__variant_a"},
		{"cpu_1__web_1__db_2__variant_b", "cpu_1__web_2__db_4__variant_b"},
	}) {
		t.Errorf("applied per stack %v", got)
	}
	if a.downs != 1 || b.downs != 0 {
		t.Errorf("downs: a %d, b %d; want a taken down once when b started, b left to the caller", a.downs, b.downs)
	}
	log, err := os.ReadFile(filepath.Join(results.CellDir(dir, "cpu_1__web_2__db_4__variant_b", 1), results.TargetLog))
	if err != nil || string(log) != "b log\n" {
		t.Errorf("target.log = %q, %v; want the variant's own log", log, err)
	}
}

// stuckStack is a variant's stack that cannot be taken down; it notes the
// time its Down had.
type stuckStack struct {
	namedStack
	left time.Duration
}

func (s *stuckStack) Down(ctx context.Context) error {
	s.downs++
	if d, ok := ctx.Deadline(); ok {
		s.left = time.Until(d)
	}
	return errors.New("network still in use")
}

// TestVariantDownFails: taking the previous variant's stack down gets two
// minutes of its own; when it fails, sweep.log says so and the next
// variant still runs.
func TestVariantDownFails(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.CPUs = []float64{1}
	spec.Variants = []Variant{{Name: "a", Files: []string{"a.yaml"}}, {Name: "b", Files: []string{"b.yaml"}}}
	a, b := &stuckStack{namedStack: namedStack{name: "a"}}, &namedStack{name: "b"}
	var log bytes.Buffer
	r := &Runner{Spec: spec, Dir: t.TempDir(), Stack: &namedStack{name: "default"}, Variants: map[string]Stack{"a": a, "b": b},
		Driver: &fakeDriver{}, Log: &log}
	sum, err := r.Run(t.Context())
	if err != nil || len(sum.Records) != 4 || sum.Failed() != 0 {
		t.Fatalf("err %v, %d records, %d failed; want 4 ok", err, len(sum.Records), sum.Failed())
	}
	if a.downs != 1 || a.left < 119*time.Second || a.left > 2*time.Minute {
		t.Errorf("a taken down %d times with %s left, want once with 2m", a.downs, a.left)
	}
	if !strings.Contains(log.String(), "take down the previous variant's stack: network still in use") {
		t.Errorf("sweep.log does not say the stack could not be taken down:\n%s", log.String())
	}
	if strings.Count(log.String(), "take down the previous variant's stack") != 1 {
		t.Errorf("sweep.log names a failed take-down more than once:\n%s", log.String())
	}
}
