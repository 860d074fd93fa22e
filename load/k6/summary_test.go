package k6

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func parseFixture(t *testing.T, name string) results.Measurement {
	t.Helper()
	m, err := ParseSummary(fixture(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// editFixture decodes a fixture, lets edit change it, and encodes it again
// (Go writes map keys sorted, so the key order changes too).
func editFixture(t *testing.T, name string, edit func(metrics map[string]map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(fixture(t, name), &doc); err != nil {
		t.Fatal(err)
	}
	metrics := map[string]map[string]any{}
	for k, v := range doc["metrics"].(map[string]any) {
		metrics[k] = v.(map[string]any)
	}
	edit(metrics)
	doc["metrics"] = metrics
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestParseSummaryGolden parses every legacy fixture and compares the whole
// Measurement with testdata/golden/<fixture>.
func TestParseSummaryGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"summary-export.json", "summary-export-threshold-fail.json", "summary-export-errors.json",
		"summary-export-arrival.json", "summary-export-arrival-dropped.json", "summary-export-ops.json",
		"summary-export-refused.json",
		"handle-summary.json", "handle-summary-threshold-fail.json", "handle-summary-errors.json",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(parseFixture(t, name)); err != nil {
				t.Fatal(err)
			}
			testenv.Golden(t, filepath.Join("testdata", "golden", name), buf.Bytes())
		})
	}
}

// TestThresholdPolarity: in the export true means crossed; in handleSummary
// data {"ok": true} means passed. Both must list only the crossed ones.
func TestThresholdPolarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		want    []string
	}{
		{"summary-export-threshold-fail.json", []string{"http_req_duration: p(99)<0.001"}},
		{"handle-summary-threshold-fail.json", []string{"http_req_duration: p(99)<0.001"}},
		// run g: the sub-metric threshold p(95)<500 passed and is left out.
		{"summary-export-errors.json", []string{"checks: rate>0.99", "http_req_failed: rate<0.01"}},
		{"handle-summary-errors.json", []string{"checks: rate>0.99", "http_req_failed: rate<0.01"}},
		{"summary-export.json", nil},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			if got := parseFixture(t, tc.fixture).ThresholdsFailed; !slices.Equal(got, tc.want) {
				t.Errorf("ThresholdsFailed = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFailedRequestsInverted: http_req_failed's passes are the failed
// requests (260 404s of 1300 in run g), so the error rate is 0.2, not 0.8.
func TestFailedRequestsInverted(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"summary-export-errors.json", "handle-summary-errors.json"} {
		m := parseFixture(t, name)
		if m.ErrorRate != 0.2 {
			t.Errorf("%s: ErrorRate = %g, want 0.2", name, m.ErrorRate)
		}
	}
}

// TestRateKey: a rate's fraction is "value" in the export and "rate" in
// handleSummary data; reading the wrong key gives 0.
func TestRateKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		checks  float64
	}{
		{"summary-export-errors.json", 0.875},
		{"handle-summary-errors.json", 0.875},
		{"handle-summary.json", 1},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			m := parseFixture(t, tc.fixture)
			if m.ChecksPassRate == nil || *m.ChecksPassRate != tc.checks {
				t.Errorf("ChecksPassRate = %v, want %g", m.ChecksPassRate, tc.checks)
			}
		})
	}
}

func TestMissingPercentiles(t *testing.T) {
	t.Parallel()
	noP99 := editFixture(t, "summary-export.json", func(m map[string]map[string]any) {
		delete(m["http_req_duration"], "p(99)")
	})
	if _, err := ParseSummary(noP99); !errors.Is(err, ErrNoP99) {
		t.Errorf("export without p(99): error = %v, want ErrNoP99", err)
	}
	noP50 := editFixture(t, "summary-export.json", func(m map[string]map[string]any) {
		delete(m["http_req_duration"], "p(50)")
	})
	m, err := ParseSummary(noP50)
	if err != nil {
		t.Fatal(err)
	}
	if want := 0.9334184999999999; m.LatencyMS.P50 != want {
		t.Errorf("P50 without p(50) = %g, want med %g", m.LatencyMS.P50, want)
	}
}

// TestDroppedIterations: dropped_iterations exists only when some were
// dropped (run e2, exit code still 0).
func TestDroppedIterations(t *testing.T) {
	t.Parallel()
	if got := parseFixture(t, "summary-export-arrival-dropped.json").DroppedIterations; got != 36584 {
		t.Errorf("DroppedIterations = %d, want 36584", got)
	}
	if got := parseFixture(t, "summary-export-arrival.json").DroppedIterations; got != 0 {
		t.Errorf("DroppedIterations without drops = %d, want 0", got)
	}
}

func TestKeyOrder(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"summary-export-ops.json", "handle-summary-errors.json"} {
		sorted := editFixture(t, name, func(map[string]map[string]any) {})
		if bytes.Equal(bytes.Join(bytes.Fields(sorted), nil), bytes.Join(bytes.Fields(fixture(t, name)), nil)) {
			t.Fatalf("%s: re-encoding kept the key order; the test shows nothing", name)
		}
		got, err := ParseSummary(sorted)
		if err != nil {
			t.Fatal(err)
		}
		if want := parseFixture(t, name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: key order changed the result:\n%+v\n%+v", name, got, want)
		}
	}
}

func TestNewMachineReadableSummary(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"summary-export-new-mrs.json", "handle-summary-new-mrs.json"} {
		_, err := ParseSummary(fixture(t, name))
		if !errors.Is(err, ErrNewSummary) || !strings.Contains(err.Error(), "--new-machine-readable-summary") {
			t.Errorf("%s: error = %v, want ErrNewSummary naming the flag", name, err)
		}
	}
}

func TestOps(t *testing.T) {
	t.Parallel()
	m := parseFixture(t, "summary-export-ops.json")
	if len(m.Ops) != 4 {
		t.Fatalf("Ops = %v, want create/read/update/delete", m.Ops)
	}
	create := m.Ops["create"]
	if create.Requests != 2223 || create.LatencyMS.P99 != 2.7918040800000132 || create.ErrorRate != 0 {
		t.Errorf("create = %+v", create)
	}
	// An op that never ran is exported with count 0 (its thresholds name
	// it) and is left out.
	noReads := editFixture(t, "summary-export-ops.json", func(metrics map[string]map[string]any) {
		metrics["http_reqs{op:read}"]["count"] = 0
	})
	if m, err := ParseSummary(noReads); err != nil || len(m.Ops) != 3 {
		t.Errorf("ops with read count 0 = %v (%v), want create/update/delete", m.Ops, err)
	}
	// Even if k6 reported an always-true op threshold as crossed, it is not
	// a result; a user's own threshold on an op sub-metric is.
	data := editFixture(t, "summary-export-ops.json", func(metrics map[string]map[string]any) {
		metrics["http_req_duration{op:create}"]["thresholds"] = map[string]any{"max>=0": true, "p(95)<1": true}
		metrics["http_reqs{op:read}"]["thresholds"] = map[string]any{"count>=0": true}
	})
	m, err := ParseSummary(data)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http_req_duration{op:create}: p(95)<1"}; !slices.Equal(m.ThresholdsFailed, want) {
		t.Errorf("ThresholdsFailed = %q, want %q", m.ThresholdsFailed, want)
	}
}

func TestNotSummary(t *testing.T) {
	t.Parallel()
	for _, data := range []string{`{}`, `not json`, `{"metrics": {"vus": {"value": 1}}}`} {
		if _, err := ParseSummary([]byte(data)); !errors.Is(err, ErrNotSummary) {
			t.Errorf("%s: error = %v, want ErrNotSummary", data, err)
		}
	}
}
