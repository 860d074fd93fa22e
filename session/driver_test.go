package session

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// itemsScenario is a scenario file of an API unlike the demo's.
const itemsScenario = `scenarios:
  - name: items
    flow:
      - post: {name: add item, url: /items, json: {n: 1}, capture: {json: $.id, as: id}, expect: 201}
      - get: {name: read item, url: "/items/{{ id }}"}
`

// scenarioSpec is a spec whose scenario file holds src.
func scenarioSpec(t *testing.T, src string) sweep.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "items.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := sweep.Spec{Driver: "auto"}
	if err := (sweep.Texts{Load: "vus=1", Scenario: path}).Apply(&spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestScenarioReachesTheDriver: with a scenario file the session picks
// the built-in driver even with a k6 at hand (--driver auto), and that
// driver, like every built-in driver of the session (s.builtin: the
// generator check's reference, a placed load, a Kubernetes Job), runs the
// file's requests.
func TestScenarioReachesTheDriver(t *testing.T) {
	t.Parallel()
	// The phase ends when the server has answered two iterations of the
	// two requests, however long a loaded host takes (a 200 ms phase could
	// end before one finished).
	stop := make(chan struct{})
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		w.Write([]byte(`{"id": 7}`))
		if served.Add(1) == 4 {
			close(stop)
		}
	}))
	t.Cleanup(srv.Close)
	k6 := filepath.Join(t.TempDir(), "k6") // never run: the scenario decides first
	s := &Session{spec: scenarioSpec(t, itemsScenario), opts: Options{K6: k6}}
	d, version, err := s.pickDriver(t.Context())
	if err != nil || d.Name() != "builtin" || version != "" {
		t.Fatalf("driver %v %q, %v; want builtin", d, version, err)
	}
	if s.builtin.Script == nil || !slices.Equal(s.builtin.Script.Ops(), []string{"add item", "read item"}) {
		t.Fatalf("the session's built-in options %+v, want the file's script", s.builtin)
	}
	m, err := d.Run(t.Context(), sweep.LoadRequest{BaseURL: srv.URL, Load: results.LoadInfo{Model: "closed", VUs: 1},
		Duration: time.Minute, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	if m.Ops["add item"].Requests == 0 || m.Ops["read item"].Requests == 0 || len(m.Ops) != 2 || m.Iterations == 0 {
		t.Errorf("ops %+v over %d iterations, want the file's two", m.Ops, m.Iterations)
	}
}

// TestScenarioThatCannotTravel: a scenario too large for the request of a
// load that runs elsewhere (a Kubernetes Job here) is bad input of
// {scenario} before a driver is made; in this process it runs.
func TestScenarioThatCannotTravel(t *testing.T) {
	t.Parallel()
	spec := scenarioSpec(t, "config: {variables: {pad: "+strings.Repeat("x", remote.MaxRequestSize)+"}}\n"+itemsScenario)
	if _, _, err := (&Session{spec: spec}).pickDriver(t.Context()); err != nil {
		t.Fatalf("in this process: %v", err)
	}
	spec.Kubernetes = true
	d, _, err := (&Session{spec: spec}).pickDriver(t.Context())
	var bad *sweep.BadInputError
	if d != nil || !errors.As(err, &bad) || bad.Field != "scenario" || !errors.Is(err, remote.ErrRequestTooLarge) {
		t.Errorf("as a Job: %v, %v; want bad input of {scenario}, too large", d, err)
	}
}

// TestBadScenarioIsBadInput: a scenario file outside the subset is bad
// input of {scenario} before a driver is made, every problem named by the
// file, line and key, the first as a *scenario.Error.
func TestBadScenarioIsBadInput(t *testing.T) {
	t.Parallel()
	src := strings.Replace(itemsScenario, "capture:", "captur:", 1) +
		`      - get: {url: "/items/{{ nope }}"}
`
	s := &Session{spec: scenarioSpec(t, src)}
	d, _, err := s.pickDriver(t.Context())
	var bad *sweep.BadInputError
	var se *scenario.Error
	if d != nil || !errors.As(err, &bad) || bad.Field != "scenario" || !errors.As(err, &se) || se.Line != 4 || se.Key != "captur" {
		t.Fatalf("pickDriver: %v, %v; want bad input of {scenario} at line 4", d, err)
	}
	path := s.spec.Scenario.Path
	for _, want := range []string{path + ":4: captur: unknown key (did you mean capture?)", path + ":5: url: {{ id }} is not defined",
		path + ":6: url: {{ nope }} is not defined"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// k6ScriptSpec is a Kubernetes spec whose k6 script holds src, k6 run
// from an image.
func k6ScriptSpec(t *testing.T, src string) sweep.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "load.js")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := sweep.Spec{Driver: "auto", Kubernetes: true, K6Image: "grafana/k6", Duration: sweep.Duration(2 * time.Second)}
	if err := (sweep.Texts{Load: "vus=1", Script: path}).Apply(&spec); err != nil {
		t.Fatal(err)
	}
	return spec
}

// TestK6AwayIsCheckedHere: with k6 run from an image on Kubernetes the
// session checks what it can before anything starts and names the
// driver k6 without needing a k6 of this host: a script too large to
// travel in the Job's request, or a phase under k6's 1 s, is bad input;
// a k6 given here that is not there too; with none given and none on
// PATH the script waits for the image's k6 to check it.
func TestK6AwayIsCheckedHere(t *testing.T) {
	t.Parallel()
	small := "export default function () {}\n"
	missing := filepath.Join(t.TempDir(), "k6")
	for _, tc := range []struct {
		name  string
		spec  sweep.Spec
		k6    string
		field string
		is    error
	}{
		// k6 on PATH checks it when there is one
		{"a script that travels", k6ScriptSpec(t, small), "", "", nil},
		{"a script too large", k6ScriptSpec(t, "// "+strings.Repeat("x", remote.MaxRequestSize)+"\n"+small), missing, "script", remote.ErrRequestTooLarge},
		{"a k6 given that is not there", k6ScriptSpec(t, small), missing, "k6", nil},
		{"a phase under 1s", func() sweep.Spec {
			s := k6ScriptSpec(t, small)
			s.Duration = sweep.Duration(500 * time.Millisecond)
			return s
		}(), missing, "duration", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &Session{spec: tc.spec, opts: Options{K6: tc.k6}}
			d, version, err := s.pickDriver(t.Context())
			var bad *sweep.BadInputError
			switch {
			case tc.field == "" && (err != nil || d == nil || d.Name() != "k6" || version != ""):
				t.Fatalf("pickDriver: %v %q, %v; want the k6 stand-in, no version", d, version, err)
			case tc.field != "" && (!errors.As(err, &bad) || bad.Field != tc.field || (tc.is != nil && !errors.Is(err, tc.is))):
				t.Fatalf("pickDriver: %v; want bad input of {%s}", err, tc.field)
			}
		})
	}
}
