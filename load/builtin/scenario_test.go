package builtin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/sweep"
)

func mustScript(t *testing.T, src string) *scenario.Script {
	t.Helper()
	s, err := scenario.Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// orders is an API unlike the demo's under /api: a POST answers its
// order_id and a Location; a GET wants the tenant header and the
// Location the POST gave.
type orders struct {
	mu       sync.Mutex
	next     int
	problems []string
}

func (o *orders) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/orders":
		var doc struct{ Total int }
		if err := json.NewDecoder(r.Body).Decode(&doc); err != nil || r.Header.Get("Content-Type") != "application/json" || doc.Total < 1 {
			o.problems = append(o.problems, "bad create body")
		}
		o.next++
		w.Header().Set("Location", "/api/orders/"+strconv.Itoa(o.next))
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"order_id": ` + strconv.Itoa(o.next) + `}`))
	case r.Method == "GET" && strings.HasPrefix(r.URL.Path, "/api/orders/"):
		if r.Header.Get("X-Tenant") != "t1" || r.Header.Get("X-Order") != r.URL.Path {
			o.problems = append(o.problems, "GET "+r.URL.Path+" with tenant "+r.Header.Get("X-Tenant")+", order "+r.Header.Get("X-Order"))
		}
		w.Write([]byte(`{}`))
	case r.Method == "DELETE":
		w.WriteHeader(http.StatusNoContent)
	default:
		http.NotFound(w, r)
	}
}

const ordersScript = `config: {variables: {tenant: t1}}
scenarios:
  - flow:
      - post:
          name: create order
          url: /orders
          json: {total: "{{ $randomNumber(1, 100) }}"}
          capture: [{json: $.order_id, as: id}, {header: Location, as: location}]
          expect: 201
      - get:
          url: "/orders/{{ id }}"
          headers: {X-Tenant: "{{ tenant }}", X-Order: "{{ location }}"}
      - delete: {url: "/orders/{{ id }}", expect: 204}
      - get: {name: missing, url: /nowhere, expect: 200}
`

// TestScriptThroughTheDriver runs a user's scenario: the base URL's path
// before each url, captures from the body and from a header, the step's
// headers and json body, each step an operation, a failed step's sample.
func TestScriptThroughTheDriver(t *testing.T) {
	t.Parallel()
	api := &orders{}
	const vus = 2
	h, stop := stopAfter(api, 4*vus*4) // four whole iterations of 4 requests a user
	srv := httptest.NewServer(h)
	defer srv.Close()
	m := runLoad(t, Options{Script: mustScript(t, ordersScript)},
		sweep.LoadRequest{BaseURL: srv.URL + "/api", Load: closed(vus), Duration: time.Minute, Stop: stop})
	api.mu.Lock()
	for _, p := range api.problems {
		t.Errorf("server saw: %s", p)
	}
	api.mu.Unlock()
	ops := []string{"create order", "GET /orders/:id", "DELETE /orders/:id", "missing"}
	for _, op := range ops {
		if got := m.Ops[op].Requests; got < m.Iterations || got > m.Iterations+vus {
			t.Errorf("%s: %d requests over %d iterations", op, got, m.Iterations)
		}
	}
	if len(m.Ops) != len(ops) || m.Iterations < vus {
		t.Errorf("ops %v over %d iterations, want %q", m.Ops, m.Iterations, ops)
	}
	if n := m.Errors["http_404"]; n != m.Ops["missing"].Requests || len(m.Errors) != 1 {
		t.Errorf("errors = %v, want only the missing step's 404s", m.Errors)
	}
	if s := m.ErrorSamples["missing"]; s.Status != 404 || s.Body != "404 page not found\n" || len(m.ErrorSamples) != 1 {
		t.Errorf("samples = %+v, want the missing step's 404", m.ErrorSamples)
	}
	checkMeasurement(t, m)
}

// TestThinkEndsWithThePhase: a user thinking for a minute does not hold
// the phase's end, and its iteration does not count. The phase runs on
// the clock of a synctest bubble (the server outside it), which moves
// only while every goroutine in it waits: a loaded host cannot stretch
// it, so Run returns at the end exactly.
func TestThinkEndsWithThePhase(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	script := mustScript(t, "scenarios: [{flow: [{get: {url: /}}, {think: 60}]}]")
	synctest.Test(t, func(t *testing.T) {
		const d = 200 * time.Millisecond
		began := time.Now()
		m := runLoad(t, Options{Script: script}, sweep.LoadRequest{BaseURL: srv.URL, Load: closed(2), Duration: d})
		if took := time.Since(began); took != d {
			t.Errorf("Run took %s, want the phase's %s", took, d)
		}
		if m.Requests != 2 || m.Iterations != 0 {
			t.Errorf("%d requests, %d iterations: want one request a user and no iteration", m.Requests, m.Iterations)
		}
	})
}

// TestUsersDrawApart: every user has its number and a random source of
// its own, and a phase's seed makes the draws again. Each phase runs on
// the clock of a synctest bubble (the server outside it), which does not
// move while a user's request is under way: every user sends its one
// request before the 100 ms end, however slow the host.
func TestUsersDrawApart(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
	}))
	defer srv.Close()
	script := mustScript(t, `scenarios: [{flow: [{get: {url: "/{{ $vu }}/{{ $randomNumber(1, 1000000000) }}"}}, {think: 60}]}]`)
	run := func() []string {
		mu.Lock()
		got = nil
		mu.Unlock()
		synctest.Test(t, func(t *testing.T) {
			runLoad(t, Options{Script: script, Seed: 7}, sweep.LoadRequest{BaseURL: srv.URL, Load: closed(3), Duration: 100 * time.Millisecond})
		})
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(got)
		return slices.Clone(got)
	}
	first := run()
	if len(first) != 3 || first[0][:3] != "/1/" || first[1][:3] != "/2/" || first[2][:3] != "/3/" {
		t.Fatalf("paths %q, want one for each of users 1, 2 and 3", first)
	}
	seen := map[string]bool{}
	for _, p := range first {
		seen[p[3:]] = true
	}
	if len(seen) != 3 {
		t.Errorf("paths %q: the users drew the same numbers", first)
	}
	if again := run(); !slices.Equal(again, first) {
		t.Errorf("seed 7 drew %q, then %q", first, again)
	}
}
