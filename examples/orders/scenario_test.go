package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
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
// users until the service has answered two iterations of its five steps
// a user (a fixed second may hold none on a loaded host): every step
// answers what it expects.
func TestScenarioAgainstTheService(t *testing.T) {
	st := openTestStore(t, testDSN(t), 2)
	const users = 4
	stop := make(chan struct{})
	var served atomic.Int64
	service := newServer(config{Workers: 2, DBPool: 2}, st, slog.New(slog.NewTextHandler(io.Discard, nil))).Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		service.ServeHTTP(w, r)
		if served.Add(1) == 2*users*int64(len(scenarioOps)) {
			close(stop)
		}
	}))
	t.Cleanup(srv.Close)
	m, err := builtin.New(builtin.Options{Script: loadScenario(t)}).Run(t.Context(), sweep.LoadRequest{
		BaseURL: srv.URL, Load: results.LoadInfo{Model: "closed", VUs: users}, Duration: time.Minute, Stop: stop})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	checkOps(t, m)
	var left int
	if err := st.pool.QueryRow(t.Context(), "SELECT count(*) FROM orders").Scan(&left); err != nil || left > users {
		t.Errorf("%d orders left (%v): want at most one a user, cut off by the phase's end", left, err)
	}
}
