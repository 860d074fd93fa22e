package k6

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// memFHIR is a tiny in-memory CRUD server with the demo app's routes.
type memFHIR struct {
	mu   sync.Mutex
	docs map[string]map[string]any
}

func (s *memFHIR) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /{type}", func(w http.ResponseWriter, r *http.Request) {
		var doc map[string]any
		if err := json.NewDecoder(r.Body).Decode(&doc); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		doc["id"] = rand.Text()
		s.mu.Lock()
		s.docs[r.PathValue("type")+"/"+doc["id"].(string)] = doc
		s.mu.Unlock()
		writeDoc(w, http.StatusCreated, doc)
	})
	mux.HandleFunc("GET /{type}/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		doc, ok := s.docs[r.PathValue("type")+"/"+r.PathValue("id")]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		writeDoc(w, http.StatusOK, doc)
	})
	mux.HandleFunc("PUT /{type}/{id}", func(w http.ResponseWriter, r *http.Request) {
		var doc map[string]any
		if err := json.NewDecoder(r.Body).Decode(&doc); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		doc["id"] = r.PathValue("id")
		s.mu.Lock()
		s.docs[r.PathValue("type")+"/"+r.PathValue("id")] = doc
		s.mu.Unlock()
		writeDoc(w, http.StatusOK, doc)
	})
	mux.HandleFunc("DELETE /{type}/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		delete(s.docs, r.PathValue("type")+"/"+r.PathValue("id"))
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func writeDoc(w http.ResponseWriter, status int, doc map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(doc)
}

// TestRealK6 runs the real k6 with the bundled script against memFHIR for
// 2 s per load model. It skips when k6 is not on PATH.
func TestRealK6(t *testing.T) {
	bin := testenv.K6(t)
	srv := httptest.NewServer((&memFHIR{docs: map[string]map[string]any{}}).handler())
	defer srv.Close()
	for _, load := range []results.LoadInfo{
		{Driver: "k6", Model: "closed", VUs: 2},
		{Driver: "k6", Model: "open", Rate: 20, VUs: 2, MaxVUs: 10},
	} {
		t.Run(load.Model, func(t *testing.T) {
			var intervals []results.Interval
			req := sweep.LoadRequest{
				BaseURL: srv.URL, Load: load, Duration: 2 * time.Second, Dir: t.TempDir(),
				Interval: func(iv results.Interval) { intervals = append(intervals, iv) },
			}
			m, err := New(Options{Binary: bin}).Run(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d requests, %.0f rps, p99 %.2f ms, %d intervals",
				load.Model, m.Requests, m.RPS, m.LatencyMS.P99, len(intervals))
			checkRealMeasurement(t, m, intervals)
		})
	}
}

func checkRealMeasurement(t *testing.T, m results.Measurement, intervals []results.Interval) {
	t.Helper()
	// gracefulStop lets every iteration finish: 9 types × 4 operations each.
	if m.Requests == 0 || m.Requests != m.Iterations*36 {
		t.Errorf("requests %d for %d iterations of 36 requests", m.Requests, m.Iterations)
	}
	if m.ErrorRate != 0 || m.ChecksPassRate == nil || *m.ChecksPassRate != 1 {
		t.Errorf("error rate %g, checks %v; want 0 and 1", m.ErrorRate, m.ChecksPassRate)
	}
	if len(m.ThresholdsFailed) != 0 {
		t.Errorf("always-true op thresholds reported as crossed: %q", m.ThresholdsFailed)
	}
	var sum int64
	for _, op := range results.Operations {
		s, ok := m.Ops[op]
		if !ok || s.Requests == 0 || s.LatencyMS.P99 == 0 {
			t.Errorf("op %s: %+v", op, s)
		}
		sum += s.Requests
	}
	if sum != m.Requests {
		t.Errorf("ops add up to %d requests, total %d", sum, m.Requests)
	}
	if m.LatencyMS.P99 <= 0 || m.DurationS < 2 {
		t.Errorf("p99 %g ms, duration %g s", m.LatencyMS.P99, m.DurationS)
	}
	var polled int64
	for _, iv := range intervals {
		polled += iv.Requests
	}
	if len(intervals) == 0 || polled > m.Requests {
		t.Errorf("%d intervals with %d requests, total %d", len(intervals), polled, m.Requests)
	}
}
