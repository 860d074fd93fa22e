package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ordersScenario tries an API unlike the demo's; the last GET comes after
// the delete, so the API answers it 404 unless told to keep the order.
const ordersScenario = `scenarios:
  - name: orders
    flow:
      - post:
          name: create order
          url: /api/orders
          json: {total: 5}
          capture: [{json: $.order_id, as: id}, {json: $.note, as: note}]
          expect: 201
      - patch: {url: "/api/orders/{{ id }}", json: {total: 6}}
      - delete: {url: "/api/orders/{{ id }}", expect: 204}
      - get: {name: read back, url: "/api/orders/{{ id }}", expect: 200}
`

func writeScenario(t *testing.T, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "orders.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ordersAPI answers the scenario's requests; with keep, a deleted order
// can still be read.
func ordersAPI(t *testing.T, keep bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == "/api/orders":
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"order_id": 17, "note": "` + strings.Repeat("é", 50) + `"}`))
		case r.Method == "DELETE" && r.URL.Path == "/api/orders/17":
			w.WriteHeader(http.StatusNoContent)
		case r.Method == "PATCH" && r.URL.Path == "/api/orders/17", r.Method == "GET" && keep && r.URL.Path == "/api/orders/17":
			w.Write([]byte(`{"order_id": 17}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error": "no such order", "pad": "` + strings.Repeat("x", 400) + `"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCheckScenario: check --scenario needs only the file and the URL,
// prints each step (request as sent, status, latency, captures cut
// short) and a verdict; a failed step is exit 1 naming the step and the
// start of its response.
func TestCheckScenario(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, ordersScenario)
	url := ordersAPI(t, true).URL
	code, stdout, stderr := runCLI(t, "check", "--scenario", path, "--url", url)
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{`orders.yaml, scenario "orders"`, "line 4   POST    " + url + "/api/orders     201",
		"id=17 note=" + strings.Repeat("é", 20) + "… (100 bytes)", "line 11  DELETE  " + url + "/api/orders/17  204",
		"scenario check passed: 4 steps"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runCLI(t, "check", "--scenario", path, "--url", ordersAPI(t, false).URL)
	if code != exitFailure || !strings.Contains(stdout, `FAILED http_404 body "{\"error\": \"no such order\", \"pad\": \"xxxx`) ||
		!strings.Contains(stdout, `xxx"… (200 bytes)`) || !strings.Contains(stdout, "scenario check failed: 1 of 4 steps failed") {
		t.Fatalf("exit %d, stdout:\n%s", code, stdout)
	}
	if !strings.Contains(stderr, `scenario "orders", step "read back" (line 12): GET `) ||
		!strings.Contains(stderr, `answered 404, not a status the step expects; the response began "{\"error\": \"no such order\"`) ||
		len(stderr) > 600 {
		t.Errorf("stderr does not name the step with a short sample: %s", stderr)
	}

	srv := ordersAPI(t, true)
	srv.Close() // nobody listens at its port now
	down := srv.URL
	code, _, stderr = runCLI(t, "check", "--scenario", path, "--url", down)
	if code != exitBadInput || !strings.Contains(stderr, "--url") || !strings.Contains(stderr, "POST "+down+"/api/orders") {
		t.Errorf("nothing at --url: exit %d, stderr %s", code, stderr)
	}
}

// TestScenarioBadInput: a scenario file outside the subset, or one beside
// k6, is exit 2 naming --scenario (and the file's line and key) before
// anything starts: run leaves no run directory, check sends nothing.
func TestScenarioBadInput(t *testing.T) {
	t.Parallel()
	good := writeScenario(t, ordersScenario)
	for _, tc := range []struct {
		name  string
		src   string // the scenario file; "" for good
		extra []string
		want  []string
	}{
		{"typo of capture", strings.Replace(ordersScenario, "capture:", "captur:", 1), nil,
			[]string{"orders.yaml:8: captur: unknown key (did you mean capture?)", "orders.yaml:10: url: {{ id }} is not defined"}},
		{"malformed JSONPath", strings.Replace(ordersScenario, "$.order_id", `"$.order_id[x]"`, 1), nil,
			[]string{"orders.yaml:8: json: "}},
		{"undefined name", strings.Replace(ordersScenario, `url: /api/orders`, `url: "/api/{{ shop }}/orders"`, 1), nil,
			[]string{"orders.yaml:6: url: {{ shop }} is not defined"}},
		{"with --driver k6", "", []string{"--driver", "k6"}, []string{"--scenario", "--driver k6"}},
		{"with --script", "", []string{"--script", "../../k6scripts/crud.js"}, []string{"--scenario", "--script"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := good
			if tc.src != "" {
				path = writeScenario(t, tc.src)
			}
			var hits int
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
			t.Cleanup(srv.Close)
			out := filepath.Join(t.TempDir(), "run")
			for _, args := range [][]string{
				{"run", "--cpus", "1", "--service", "app", "--url", srv.URL, "--compose", "/nonexistent/compose.yaml", "--out", out},
				{"limit", "--cpus", "1", "--web", "2", "--pool", "4", "--service", "app", "--url", srv.URL, "--compose", "/nonexistent/compose.yaml",
					"--slo", "p99<=100ms", "--out", out},
				{"check", "--url", srv.URL},
			} {
				args = append(append(args, "--scenario", path), tc.extra...)
				code, _, stderr := runCLI(t, args...)
				if code != exitBadInput || !strings.Contains(stderr, "--scenario") {
					t.Errorf("%s: exit %d, want 2 naming --scenario; stderr %s", args[0], code, stderr)
				}
				for _, w := range tc.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("%s: stderr lacks %q: %s", args[0], w, stderr)
					}
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) || hits != 0 {
				t.Errorf("bad input started something: %s (%v), %d requests", out, err, hits)
			}
		})
	}
}

// TestChangedScenarioRefused: a run whose scenario file was edited since
// is refused, naming the scenario, by run with the same flags, by resume
// and by rerun (which take the file the spec recorded), before anything
// starts.
func TestChangedScenarioRefused(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, ordersScenario)
	args := []string{"--cpus", "1", "--web-mult", "1", "--db-mult", "2", "--service", "app", "--url", "http://127.0.0.1:1",
		"--compose", "/nonexistent/compose.yaml", "--scenario", path}
	spec, err := resolveSpec(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	spec.Repeat, spec.Order = 1, "grid"
	dir := filepath.Join(t.TempDir(), "run")
	writeRun(t, dir, spec)
	if err := os.WriteFile(path, []byte(strings.Replace(ordersScenario, "total: 5", "total: 7", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmdline := range [][]string{append(append([]string{"run"}, args...), "--out", dir), {"resume", dir}, {"rerun", dir, spec.Cells()[0].ID}} {
		code, _, stderr := runCLI(t, cmdline...)
		if want := "scenario (" + path + " changed: sha256 " + spec.Scenario.SHA256[:12]; code != exitBadInput || !strings.Contains(stderr, want) {
			t.Errorf("sweep %s after the scenario changed: exit %d, want 2 saying %q\n%s", cmdline[0], code, want, stderr)
		}
	}
}
