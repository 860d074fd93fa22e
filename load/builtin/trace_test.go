package builtin

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sweep-tool/sweep/load/scenario"
)

// orderAPI is an API unlike the demo's: POST /api/orders answers
// {"order_id": 17}, then GET, PATCH and DELETE /api/orders/17 work until
// the order is deleted; anything else is a JSON 404.
func orderAPI(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	exists := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		switch {
		case r.Method == "POST" && r.URL.Path == "/api/orders" && string(body) == `{"total":5}`:
			exists = true
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"order_id": 17, "note": "` + strings.Repeat("n", 300) + `"}`))
		case r.URL.Path == "/api/orders/17" && exists && (r.Method == "GET" || r.Method == "PATCH"):
			w.Write([]byte(`{"order_id": 17, "total": 6}`))
		case r.URL.Path == "/api/orders/17" && exists && r.Method == "DELETE":
			exists = false
			w.WriteHeader(http.StatusNoContent)
		case r.URL.Path == "/health":
			w.Write([]byte("ok"))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error": "no such order"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const traceScript = `scenarios:
  - name: orders
    flow:
      - post:
          name: create order
          url: /orders
          json: {total: 5}
          capture: [{json: $.order_id, as: id}, {json: $.note, as: note}]
          expect: 201
      - get: {url: "/orders/{{ id }}"}
      - patch: {url: "/orders/{{ id }}", json: {total: 6}}
      - delete: {url: "/orders/{{ id }}", expect: 204}
      - get: {name: read deleted, url: "/orders/{{ id }}", expect: 200}
  - name: health
    flow:
      - get: {url: /health}
`

// TestTraceEveryScenarioOnce: one iteration of each scenario in file
// order, each step with its request as sent, status, latency and
// captures; the 404 after the delete fails its step, and Err names it
// with the response's sample.
func TestTraceEveryScenarioOnce(t *testing.T) {
	t.Parallel()
	srv := orderAPI(t)
	steps, err := Trace(t.Context(), Options{Script: mustScript(t, traceScript)}, srv.URL+"/api/")
	if err != nil {
		t.Fatal(err)
	}
	type want struct{ scenario, op, method, url, class string }
	base := srv.URL + "/api/orders"
	wants := []want{
		{"orders", "create order", "POST", base, ""},
		{"orders", "GET /orders/:id", "GET", base + "/17", ""},
		{"orders", "PATCH /orders/:id", "PATCH", base + "/17", ""},
		{"orders", "DELETE /orders/:id", "DELETE", base + "/17", ""},
		{"orders", "read deleted", "GET", base + "/17", "http_404"},
		{"health", "GET /health", "GET", srv.URL + "/api/health", "http_404"},
	}
	if len(steps) != len(wants) {
		t.Fatalf("%d steps, want %d: %+v", len(steps), len(wants), steps)
	}
	for i, w := range wants {
		s := steps[i]
		if got := (want{s.Scenario, s.Op, s.Method, s.URL, s.Class}); got != w || s.Latency <= 0 || s.Status == 0 {
			t.Errorf("step %d: %+v (status %d, latency %s), want %+v", i, got, s.Status, s.Latency, w)
		}
	}
	if c := steps[0].Captured; len(c) != 2 || c[0] != (scenario.Captured{Name: "id", Value: "17", OK: true}) ||
		c[1].Name != "note" || len(c[1].Value) != 300 || steps[0].Status != 201 || steps[3].Status != 204 {
		t.Errorf("the create's captures %+v, statuses %d and %d", c, steps[0].Status, steps[3].Status)
	}
	if s := steps[4]; s.Status != 404 || s.Body != `{"error": "no such order"}` || s.Line != 13 {
		t.Errorf("the failed step: %+v", s)
	}
	err = steps.Err()
	for _, part := range []string{`scenario "orders", step "read deleted" (line 13): GET ` + base + `/17 answered 404`,
		`the response began "{\"error\": \"no such order\"}"`, "(and 1 more failed steps)"} {
		if !errors.Is(err, ErrStepFailed) || !strings.Contains(err.Error(), part) {
			t.Errorf("Err() = %v, want it to say %s", err, part)
		}
	}
	if err := steps[:4].Err(); err != nil {
		t.Errorf("Err() of the steps that passed: %v", err)
	}
}

// TestTraceSkippedAndUnreachable: a step that needs a capture that failed
// is not sent and says so; a target nobody listens at ends the trace.
func TestTraceSkippedAndUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{}`)) }))
	t.Cleanup(srv.Close)
	script := mustScript(t, `scenarios:
  - flow:
      - post: {url: /orders, capture: {json: $.order_id, as: id}}
      - get: {url: "/orders/{{ id }}"}
`)
	steps, err := Trace(t.Context(), Options{Script: script}, srv.URL)
	if err != nil || len(steps) != 2 || steps[0].Class != scenario.ClassCapture || steps[1].Class != scenario.ClassSkipped ||
		steps[1].Method != "" || slices.ContainsFunc(steps[0].Captured, func(c scenario.Captured) bool { return c.OK }) {
		t.Fatalf("steps %+v, %v", steps, err)
	}
	if err := steps.Err(); err == nil || !strings.Contains(err.Error(), `POST `+srv.URL+`/orders answered 200, but a capture found nothing`) {
		t.Errorf("Err() = %v", err)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	steps, err = Trace(t.Context(), Options{Script: script}, "http://"+addr)
	if !errors.Is(err, scenario.ErrAbort) || !strings.Contains(err.Error(), "POST http://"+addr+"/orders") || len(steps) != 0 {
		t.Errorf("unreachable: %+v, %v", steps, err)
	}
}
