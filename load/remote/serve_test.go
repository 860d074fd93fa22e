package remote

import (
	"bytes"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestRequestRoundTrip(t *testing.T) {
	t.Parallel()
	lr := sweep.LoadRequest{
		BaseURL: "http://10.77.0.3:18080/fhir", Load: results.LoadInfo{Driver: "builtin", Model: "open", VUs: 4, Rate: 50, MaxVUs: 20},
		Duration: 1500 * time.Millisecond, Warmup: true, Interval: func(results.Interval) {},
	}
	opts := builtin.Options{Timeout: 3 * time.Second, Scenario: builtin.ScenarioGet}
	req, err := DecodeRequest([]byte(encode(t, NewRequest(lr, opts))))
	if err != nil {
		t.Fatal(err)
	}
	if !req.Intervals {
		t.Error("a request with an Interval callback must ask for interval frames")
	}
	got, gotOpts, err := req.loadRequest()
	if err != nil {
		t.Fatal(err)
	}
	lr.Interval = nil
	if !reflect.DeepEqual(got, lr) || gotOpts != opts {
		t.Errorf("round trip = %+v %+v, want %+v %+v", got, gotOpts, lr, opts)
	}
}

// encode is r encoded, failing the test when it cannot travel.
func encode(t *testing.T, r Request) string {
	t.Helper()
	text, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

func TestRequestCarriesTheScenario(t *testing.T) {
	t.Parallel()
	script := ordersScript(t)
	opts := builtin.Options{Timeout: 2 * time.Second, Script: script}
	text := encode(t, NewRequest(loadReq(), opts))
	// readable where the platform shows it: the file's text as written
	if !strings.Contains(text, `"file":"orders.yaml"`) || !strings.Contains(text, `customer: \"c<3>&\"`) {
		t.Errorf("request %s does not show the scenario as written", text)
	}
	req, err := DecodeRequest([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := req.loadRequest()
	if err != nil {
		t.Fatal(err)
	}
	if got.Script == nil || !slices.Equal(got.Script.Ops(), ordersOps) || !slices.Equal(got.Script.Scenarios(), []string{"orders"}) {
		t.Fatalf("far end's script %+v, want the orders file's operations %q", got.Script, ordersOps)
	}
	file, data := got.Script.Source()
	if file != "orders.yaml" || string(data) != ordersFile {
		t.Errorf("far end's source = %s, %q; want orders.yaml and the file as parsed", file, data)
	}
	got.Script, opts.Script = nil, nil
	if got != opts {
		t.Errorf("options = %+v, want %+v", got, opts)
	}
}

func TestReadRequestTakesTextThenEnvThenStdin(t *testing.T) {
	t.Parallel()
	doc := func(url string) string {
		return `{"base_url":"` + url + `","load":{"model":"closed","vus":1},"duration":"1s"}`
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == RequestEnv {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name, text, env, stdin, want string
	}{
		{"text first", doc("http://text/"), doc("http://env/"), doc("http://stdin/"), "http://text/"},
		{"then the variable", "", doc("http://env/"), doc("http://stdin/"), "http://env/"},
		{"then stdin", "", "", doc("http://stdin/"), "http://stdin/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := ReadRequest(tc.text, env(tc.env), strings.NewReader(tc.stdin))
			if err != nil || req.BaseURL != tc.want {
				t.Fatalf("ReadRequest = %+v, %v; want base URL %s", req, err, tc.want)
			}
		})
	}
	if _, err := ReadRequest("", env(""), strings.NewReader("")); !errors.Is(err, ErrBadRequest) {
		t.Errorf("empty stdin: err = %v, want ErrBadRequest", err)
	}
}

func TestDecodeRequestRefuses(t *testing.T) {
	t.Parallel()
	for name, in := range map[string]string{
		"unknown key":   `{"base_url":"http://a/","load":{"model":"closed","vus":1},"duration":"1s","vus":3}`,
		"two documents": `{"duration":"1s"} {}`,
		"not json":      `duration=1s`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := DecodeRequest([]byte(in)); !errors.Is(err, ErrBadRequest) {
				t.Fatalf("err = %v, want ErrBadRequest", err)
			}
		})
	}
}

// serve runs Serve on req and returns its intervals and result.
func serve(t *testing.T, req Request, stop <-chan struct{}) ([]results.Interval, Result) {
	t.Helper()
	var out bytes.Buffer
	if err := Serve(t.Context(), req, ServeOptions{}, stop, &out); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	ivs, res, _ := readFrames(t, &out)
	return ivs, res
}

func okServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestServeRunsThePhaseAndPrintsItsRecord(t *testing.T) {
	t.Parallel()
	req := Request{BaseURL: okServer(t), Load: results.LoadInfo{Model: "closed", VUs: 2}, Duration: "2s",
		Intervals: true, Scenario: string(builtin.ScenarioGet)}
	ivs, res := serve(t, req, nil)
	m := res.Measurement
	if m.Requests == 0 || m.ErrorRate != 0 || m.RPS <= 0 {
		t.Fatalf("measurement = %+v, want requests without errors", m)
	}
	// Not less than the phase; a loaded host may end it late (CI saw
	// 400 ms stalls), not by a phase's worth many times over.
	if m.DurationS < 1.9 || m.DurationS > 10 || res.WallSeconds < m.DurationS {
		t.Errorf("duration %.3fs, wall %.3fs for a 2s phase", m.DurationS, res.WallSeconds)
	}
	var sum int64
	for _, iv := range ivs {
		sum += iv.Requests
	}
	// the part of the phase after the last whole second gets no interval
	// when it is under 0.1 s: the sum may lack a few requests
	if len(ivs) < 2 || sum > m.Requests || sum < m.Requests*9/10 {
		t.Errorf("%d intervals with %d requests, record has %d", len(ivs), sum, m.Requests)
	}
	if res.CPUSeconds <= 0 {
		t.Errorf("cpu_s = %v, want the process's CPU over the phase", res.CPUSeconds)
	}
}

func TestServeStopsEarlyAsANormalEnd(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { close(stop) })
	req := Request{BaseURL: okServer(t), Load: results.LoadInfo{Model: "closed", VUs: 1}, Duration: "30s",
		Scenario: string(builtin.ScenarioGet)}
	ivs, res := serve(t, req, stop)
	if res.Error != "" || res.Measurement.Requests == 0 {
		t.Fatalf("result = %+v", res)
	}
	if res.Measurement.DurationS > 10 {
		t.Errorf("a phase stopped after 0.3s lasted %.1fs", res.Measurement.DurationS)
	}
	if len(ivs) != 0 {
		t.Errorf("%d interval frames though the request asked for none", len(ivs))
	}
}

func TestServeReportsABadRequestAsAnErrorFrame(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	req := Request{BaseURL: "ftp://x/", Load: results.LoadInfo{Model: "closed", VUs: 1}, Duration: "1s"}
	err := Serve(t.Context(), req, ServeOptions{}, nil, &out)
	if !errors.Is(err, ErrBadRequest) || !errors.Is(err, builtin.ErrBadRequest) {
		t.Fatalf("err = %v, want ErrBadRequest", err)
	}
	var p parser
	f, ok, perr := p.line(out.Bytes())
	var doc errorDoc
	if perr != nil || !ok || f.kind != kindError || f.decode(&doc) != nil || doc.Error != err.Error() {
		t.Fatalf("output %q is not the error frame of %v", out.String(), err)
	}
}

func TestServeRunsTheRequestsScenario(t *testing.T) {
	t.Parallel()
	lr := sweep.LoadRequest{BaseURL: ordersServer(t), Load: results.LoadInfo{Model: "closed", VUs: 2}, Duration: time.Second}
	req, err := DecodeRequest([]byte(encode(t, NewRequest(lr, builtin.Options{Script: ordersScript(t)}))))
	if err != nil {
		t.Fatal(err)
	}
	_, res := serve(t, req, nil)
	m := res.Measurement
	if res.Error != "" || m.Requests == 0 || m.ErrorRate != 0 {
		t.Fatalf("result = %+v, want the orders flow without errors", res)
	}
	ops := slices.Sorted(maps.Keys(m.Ops))
	if want := slices.Sorted(slices.Values(ordersOps)); !slices.Equal(ops, want) {
		t.Errorf("operations %q, want the scenario's %q", ops, want)
	}
}

func TestServeRefusesAScenarioThatDoesNotParse(t *testing.T) {
	t.Parallel()
	bad := strings.Replace(ordersFile, "capture:", "captur:", 1)
	req := Request{BaseURL: ordersServer(t), Load: results.LoadInfo{Model: "closed", VUs: 1}, Duration: "1s",
		Script: &Source{File: "orders.yaml", YAML: bad}}
	var out bytes.Buffer
	err := Serve(t.Context(), req, ServeOptions{}, nil, &out)
	var se *scenario.Error
	if !errors.Is(err, ErrBadRequest) || !errors.As(err, &se) {
		t.Fatalf("err = %v, want ErrBadRequest with the scenario's error", err)
	}
	if !strings.Contains(err.Error(), "orders.yaml:10: captur: unknown key (did you mean capture?)") {
		t.Errorf("err = %v, want the file, line and key", err)
	}
	if !strings.Contains(out.String(), "orders.yaml:10: captur") {
		t.Errorf("error frame %q lacks the scenario's error", out.String())
	}
}
