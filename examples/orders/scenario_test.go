package main

import (
	"slices"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// scenarioOps are the operations of scenario.yaml, in its order.
var scenarioOps = []string{"create", "read", "pay", "search", "delete"}

// loadScenario parses scenario.yaml as sweep does.
func loadScenario(t *testing.T) *scenario.Script {
	t.Helper()
	s, err := scenario.Load("scenario.yaml")
	if err != nil {
		t.Fatalf("scenario.yaml: %v", err)
	}
	return s
}

// TestScenarioParses: scenario.yaml is in the built-in driver's subset,
// one scenario whose steps are the five operations.
func TestScenarioParses(t *testing.T) {
	t.Parallel()
	s := loadScenario(t)
	if got := s.Ops(); !slices.Equal(got, scenarioOps) {
		t.Errorf("operations %q, want %q", got, scenarioOps)
	}
	if got := s.Scenarios(); !slices.Equal(got, []string{"order lifecycle"}) {
		t.Errorf("scenarios %q", got)
	}
}

// checkOps fails t unless every step of scenario.yaml is an operation of
// m with requests and no error, and m has no error of any other kind.
func checkOps(t *testing.T, m results.Measurement) {
	t.Helper()
	for _, op := range scenarioOps {
		s, ok := m.Ops[op]
		t.Logf("%s: %d requests, %.0f/s, error rate %.4f, p99 %.1f ms", op, s.Requests, s.RPS, s.ErrorRate, s.LatencyMS.P99)
		if !ok || s.Requests == 0 || s.ErrorRate != 0 || s.Skipped != 0 {
			t.Errorf("operation %s: %+v (present %v); want requests and no error", op, s, ok)
		}
	}
	if len(m.Ops) != len(scenarioOps) || len(m.Errors) != 0 || m.ErrorRate != 0 || m.ConnectErrors != 0 {
		t.Errorf("operations %d, errors %v (rate %.4f), connect errors %d; want %d and none", len(m.Ops), m.Errors,
			m.ErrorRate, m.ConnectErrors, len(scenarioOps))
	}
	if samples := m.ErrorSamples; len(samples) != 0 {
		t.Errorf("failed responses: %+v", samples)
	}
}

// TestScenarioAgainstTheService runs scenario.yaml through the built-in
// driver against the service in this process on a real PostgreSQL, four
// users for a second: every step answers what it expects.
func TestScenarioAgainstTheService(t *testing.T) {
	st := openTestStore(t, testDSN(t), 2)
	base := startService(t, config{Workers: 2, DBPool: 2}, st)
	m, err := builtin.New(builtin.Options{Script: loadScenario(t)}).Run(t.Context(), sweep.LoadRequest{
		BaseURL: base, Load: results.LoadInfo{Model: "closed", VUs: 4}, Duration: time.Second})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkOps(t, m)
	var left int
	if err := st.pool.QueryRow(t.Context(), "SELECT count(*) FROM orders").Scan(&left); err != nil || left > 4 {
		t.Errorf("%d orders left (%v): want at most one a user, cut off by the phase's end", left, err)
	}
}
