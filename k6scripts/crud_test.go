package k6scripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteTo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteTo(dir); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, CRUD))
	if err != nil {
		t.Fatal(err)
	}
	want, err := FS.ReadFile(CRUD)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || len(got) == 0 {
		t.Errorf("written %s differs from the embedded one (%d vs %d bytes)", CRUD, len(got), len(want))
	}
	if err := WriteTo(filepath.Join(dir, "missing")); err == nil {
		t.Error("WriteTo into a missing directory: no error")
	}
}

// harnessRun is what testdata/node/harness.mjs prints.
type harnessRun struct {
	Options struct {
		Scenarios  map[string]map[string]any `json:"scenarios"`
		Thresholds map[string][]string       `json:"thresholds"`
	} `json:"options"`
	Requests []struct {
		Method string         `json:"method"`
		URL    string         `json:"url"`
		Body   map[string]any `json:"body"`
		Params struct {
			Tags map[string]string `json:"tags"`
		} `json:"params"`
	} `json:"requests"`
	Checks []struct {
		Name   string `json:"name"`
		Passed bool   `json:"passed"`
	} `json:"checks"`
	Sleeps []float64 `json:"sleeps"`
	Added  []struct {
		Metric string            `json:"metric"`
		Value  float64           `json:"value"`
		Tags   map[string]string `json:"tags"`
	} `json:"added"`
}

// runScript runs crud.js under node with k6's modules replaced by the fakes
// in testdata/node, every request failing with k6 error code failWith
// when it is not 0. node --check alone is no syntax check here: on a .js
// file with import statements node v20 prints nothing and exits 0.
func runScript(t *testing.T, env map[string]string, failWith ...int) (harnessRun, error) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH; it is needed to run crud.js without k6")
	}
	dir := t.TempDir()
	for _, name := range []string{"fake-k6.mjs", "fake-http.mjs", "fake-metrics.mjs", "harness.mjs"} {
		data, err := os.ReadFile(filepath.Join("testdata", "node", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := FS.ReadFile(CRUD)
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte("from 'k6/http'"), []byte("from './fake-http.mjs'"), 1)
	src = bytes.Replace(src, []byte("from 'k6'"), []byte("from './fake-k6.mjs'"), 1)
	src = bytes.Replace(src, []byte("from 'k6/metrics'"), []byte("from './fake-metrics.mjs'"), 1)
	if err := os.WriteFile(filepath.Join(dir, "crud.mjs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	envJSON, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"harness.mjs", string(envJSON)}
	for _, code := range failWith {
		args = append(args, fmt.Sprint(code))
	}
	cmd := exec.CommandContext(t.Context(), node, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return harnessRun{}, fmt.Errorf("%w: %s", err, stderr.String())
	}
	var run harnessRun
	if err := json.Unmarshal(stdout.Bytes(), &run); err != nil {
		t.Fatalf("harness output: %v\n%s", err, stdout.String())
	}
	return run, nil
}

func TestCRUDOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    map[string]any // keys of the crud scenario
		wantErr string
	}{
		{
			name: "closed",
			env:  map[string]string{"MODEL": "closed", "VUS": "12", "DURATION": "1m30s"},
			want: map[string]any{"executor": "constant-vus", "vus": 12.0, "duration": "1m30s", "gracefulStop": "5s"},
		},
		{
			name: "closed defaults",
			env:  map[string]string{},
			want: map[string]any{"executor": "constant-vus", "vus": 10.0, "duration": "30s"},
		},
		{
			name: "open",
			env:  map[string]string{"MODEL": "open", "RATE": "500", "PRE_VUS": "20", "MAX_VUS": "200", "DURATION": "10s"},
			want: map[string]any{
				"executor": "constant-arrival-rate", "rate": 500.0, "timeUnit": "1s",
				"preAllocatedVUs": 20.0, "maxVUs": 200.0, "duration": "10s",
			},
		},
		{
			name: "open fractional rate",
			env:  map[string]string{"MODEL": "open", "RATE": "2.5"},
			want: map[string]any{"rate": 2500.0, "timeUnit": "1000s", "preAllocatedVUs": 3.0, "maxVUs": 100.0},
		},
		{
			name: "open rate with more decimals",
			env:  map[string]string{"MODEL": "open", "RATE": "0.3333"},
			want: map[string]any{"rate": 333.0, "timeUnit": "1000s", "preAllocatedVUs": 1.0},
		},
		{name: "open rate k6 cannot express", env: map[string]string{"MODEL": "open", "RATE": "0.0004"}, wantErr: "at least 0.001"},
		{name: "open without rate", env: map[string]string{"MODEL": "open"}, wantErr: "MODEL=open needs RATE"},
		{name: "bad model", env: map[string]string{"MODEL": "ramp"}, wantErr: "MODEL=ramp"},
		{name: "zero vus", env: map[string]string{"VUS": "0"}, wantErr: "VUS=0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run, err := runScript(t, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			sc := run.Options.Scenarios["crud"]
			for k, v := range tc.want {
				if sc[k] != v {
					t.Errorf("scenario %s = %v, want %v", k, sc[k], v)
				}
			}
			for _, op := range []string{"create", "read", "update", "delete"} {
				for _, m := range []string{"http_req_duration", "http_reqs", "http_req_failed", "connect_errors"} {
					if len(run.Options.Thresholds[m+"{op:"+op+"}"]) != 1 {
						t.Errorf("no always-true threshold on %s{op:%s}", m, op)
					}
				}
			}
		})
	}
}

func TestCRUDIteration(t *testing.T) {
	t.Parallel()
	run, err := runScript(t, map[string]string{"BASE_URL": "http://target:8080/"})
	if err != nil {
		t.Fatal(err)
	}
	types := []string{"Patient", "Location", "Organization", "Practitioner", "Encounter",
		"Observation", "MedicationRequest", "Claim", "ExplanationOfBenefit"}
	if len(run.Requests) != 4*len(types) {
		t.Fatalf("%d requests, want %d", len(run.Requests), 4*len(types))
	}
	var order []string
	for i, r := range run.Requests {
		op, typ := r.Params.Tags["op"], r.Params.Tags["type"]
		if r.Params.Tags["name"] != typ+" "+op {
			t.Errorf("request %d name tag %q, want %q", i, r.Params.Tags["name"], typ+" "+op)
		}
		if !strings.HasPrefix(r.URL, "http://target:8080/"+typ) {
			t.Errorf("request %d url %s", i, r.URL)
		}
		order = append(order, r.Method+" "+typ)
	}
	deletes := order[27:]
	reversed := slices.Clone(types)
	slices.Reverse(reversed)
	for i, typ := range reversed {
		if deletes[i] != "DELETE "+typ {
			t.Errorf("delete %d = %s, want DELETE %s", i, deletes[i], typ)
		}
	}
	encounter := run.Requests[4].Body
	if subject, _ := encounter["subject"].(map[string]any); subject["reference"] != "Patient/id1" {
		t.Errorf("Encounter subject = %v, want Patient/id1", encounter["subject"])
	}
	if len(run.Checks) != 36 {
		t.Errorf("%d checks, want 36", len(run.Checks))
	}
}

func TestCRUDTypes(t *testing.T) {
	t.Parallel()
	run, err := runScript(t, map[string]string{"TYPES": "Patient, Encounter"})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Requests) != 8 {
		t.Fatalf("%d requests, want 8", len(run.Requests))
	}
	if _, linked := run.Requests[1].Body["serviceProvider"]; linked {
		t.Error("Encounter references an Organization that was not created")
	}
}

// TestCRUDConnectErrors: a request that never got an HTTP answer because
// the connection failed is added to connect_errors with its op and kind,
// and the VU backs off (50 ms doubling, at most 1 s); a request timeout
// is a failed request, not a connection failure, and a healthy target
// makes no pause at all.
func TestCRUDConnectErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code   int
		kind   string
		sleeps []float64
	}{
		{1212, "refused", []float64{0.05, 0.1, 0.2, 0.4, 0.8, 1, 1, 1, 1}},
		{1101, "dns", nil},
		{1211, "timeout", nil},
		{1220, "reset", nil},
		{1310, "tls", nil},
		{1202, "other", nil},
		{1050, "", nil},
		{0, "", nil},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			t.Parallel()
			run, err := runScript(t, map[string]string{}, tc.code)
			if err != nil {
				t.Fatal(err)
			}
			if tc.kind == "" {
				if len(run.Added) != 0 || len(run.Sleeps) != 0 {
					t.Errorf("code %d: counted %+v, slept %v", tc.code, run.Added, run.Sleeps)
				}
				return
			}
			// the nine creates fail; nothing is read, updated or deleted
			if len(run.Added) != 9 {
				t.Fatalf("%d connect errors counted, want 9", len(run.Added))
			}
			for _, a := range run.Added {
				if a.Metric != "connect_errors" || a.Value != 1 || a.Tags["op"] != "create" || a.Tags["kind"] != tc.kind {
					t.Errorf("added %+v, want connect_errors 1 {op:create, kind:%s}", a, tc.kind)
				}
			}
			if tc.sleeps != nil && !slices.Equal(run.Sleeps, tc.sleeps) {
				t.Errorf("backoff %v, want %v", run.Sleeps, tc.sleeps)
			}
		})
	}
}

func TestDemoCRUDEmbedded(t *testing.T) {
	t.Parallel()
	onDisk, err := os.ReadFile(filepath.Join("scenarios", DemoCRUDFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(DemoCRUD) == 0 || !bytes.Equal(DemoCRUD, onDisk) {
		t.Errorf("DemoCRUD (%d bytes) is not scenarios/%s (%d bytes)", len(DemoCRUD), DemoCRUDFile, len(onDisk))
	}
}
