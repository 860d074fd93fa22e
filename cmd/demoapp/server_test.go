package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeStore keeps resources in a map. gate, when set, blocks every data
// call until it is closed, so tests can hold handlers inside the store.
type fakeStore struct {
	mu      sync.Mutex
	docs    map[string][]byte
	pingErr error
	gate    chan struct{}
	active  atomic.Int32 // calls inside the store right now
	peak    atomic.Int32
	holds   atomic.Int32
}

func newFakeStore() *fakeStore { return &fakeStore{docs: map[string][]byte{}} }

func (f *fakeStore) enter() func() {
	n := f.active.Add(1)
	for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
	}
	if f.gate != nil {
		<-f.gate
	}
	return func() { f.active.Add(-1) }
}

func (f *fakeStore) Create(_ context.Context, typ, id string, doc []byte) error {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs[typ+"/"+id] = doc
	return nil
}

func (f *fakeStore) Get(_ context.Context, typ, id string) ([]byte, error) {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	doc, ok := f.docs[typ+"/"+id]
	if !ok {
		return nil, errNotFound
	}
	return doc, nil
}

func (f *fakeStore) Update(_ context.Context, typ, id string, doc []byte) error {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.docs[typ+"/"+id]; !ok {
		return errNotFound
	}
	f.docs[typ+"/"+id] = doc
	return nil
}

func (f *fakeStore) Delete(_ context.Context, typ, id string) error {
	defer f.enter()()
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.docs[typ+"/"+id]; !ok {
		return errNotFound
	}
	delete(f.docs, typ+"/"+id)
	return nil
}

func (f *fakeStore) Ping(context.Context) error { return f.pingErr }

func (f *fakeStore) Hold(context.Context, int, time.Duration) error {
	f.holds.Add(1)
	return nil
}

func testConfig(t *testing.T, env map[string]string) config {
	t.Helper()
	base := map[string]string{"DATABASE_URL": "postgres://u:p@127.0.0.1:1/db", "BOX_INSTANCE_NAME": "t1"}
	for k, v := range env {
		base[k] = v
	}
	cfg, err := loadConfig(func(k string) string { return base[k] })
	if err != nil {
		t.Fatalf("loadConfig: %v", err)
	}
	return cfg
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// do sends one request to h and returns the recorded response.
func do(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), method, path, strings.NewReader(body))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestCRUDCycle(t *testing.T) {
	st := newFakeStore()
	h := newServer(testConfig(t, nil), st, quietLog()).Handler()

	rec := do(t, h, "POST", "/Patient", `{"resourceType":"Patient","name":[{"family":"Doe"}]}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST status %d, body %s", rec.Code, rec.Body)
	}
	var created map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		t.Fatalf("POST body: %v", err)
	}
	id, _ := created["id"].(string)
	if id == "" || created["resourceType"] != "Patient" {
		t.Fatalf("POST body lacks id or fields: %v", created)
	}
	if loc := rec.Header().Get("Location"); loc != "/Patient/"+id {
		t.Errorf("Location = %q, want /Patient/%s", loc, id)
	}
	if got := rec.Header().Get("X-Instance"); got != "t1" {
		t.Errorf("X-Instance = %q, want t1", got)
	}

	steps := []struct {
		name, method, path, body string
		want                     int
		wantIn                   string
	}{
		{"read", "GET", "/Patient/" + id, "", 200, `"family":"Doe"`},
		{"update", "PUT", "/Patient/" + id, `{"resourceType":"Patient","active":true}`, 200, `"id":"` + id + `"`},
		{"read updated", "GET", "/Patient/" + id, "", 200, `"active":true`},
		{"delete", "DELETE", "/Patient/" + id, "", 204, ""},
		{"read deleted", "GET", "/Patient/" + id, "", 404, ""},
		{"update deleted", "PUT", "/Patient/" + id, `{}`, 404, ""},
		{"delete deleted", "DELETE", "/Patient/" + id, "", 404, ""},
	}
	for _, s := range steps {
		rec := do(t, h, s.method, s.path, s.body)
		if rec.Code != s.want {
			t.Fatalf("%s: status %d, want %d (body %s)", s.name, rec.Code, s.want, rec.Body)
		}
		if !strings.Contains(rec.Body.String(), s.wantIn) {
			t.Errorf("%s: body %s lacks %s", s.name, rec.Body, s.wantIn)
		}
	}
}

func TestRoutingStatus(t *testing.T) {
	st := newFakeStore()
	st.docs["Claim/c1"] = []byte(`{"id":"c1"}`)
	h := newServer(testConfig(t, nil), st, quietLog()).Handler()
	cases := []struct {
		name, method, path, body string
		want                     int
	}{
		{"unknown type post", "POST", "/Banana", `{}`, 404},
		{"unknown type get", "GET", "/Banana/1", "", 404},
		{"lower-case type", "GET", "/claim/c1", "", 404},
		{"known type get", "GET", "/Claim/c1", "", 200},
		{"missing id", "GET", "/Claim/nope", "", 404},
		{"body not json", "POST", "/Claim", `not json`, 400},
		{"body is array", "POST", "/Claim", `[1,2]`, 400},
		{"body is null", "POST", "/Claim", `null`, 400},
		{"all nine types", "POST", "/ExplanationOfBenefit", `{}`, 201},
		{"wrong method", "PATCH", "/Claim/c1", `{}`, 405},
		{"root", "GET", "/", "", 404},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if rec := do(t, h, c.method, c.path, c.body); rec.Code != c.want {
				t.Errorf("%s %s: status %d, want %d (body %s)", c.method, c.path, rec.Code, c.want, rec.Body)
			}
		})
	}
}

func TestHealth(t *testing.T) {
	cases := []struct {
		name    string
		fault   string
		pingErr error
		want    int
	}{
		{"db answers", "", nil, 200},
		{"db down", "", errBusy, 503},
		{"never-ready fault", "never-ready", nil, 503},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newFakeStore()
			st.pingErr = c.pingErr
			h := newServer(testConfig(t, map[string]string{"DEMOAPP_FAULT": c.fault}), st, quietLog()).Handler()
			if rec := do(t, h, "GET", "/health", ""); rec.Code != c.want {
				t.Errorf("status %d, want %d", rec.Code, c.want)
			}
		})
	}
}

func TestStoreBusyIs503(t *testing.T) {
	h := newServer(testConfig(t, nil), busyStore{newFakeStore()}, quietLog()).Handler()
	if rec := do(t, h, "GET", "/Patient/x", ""); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("status %d, want 503", rec.Code)
	}
}

// busyStore answers every read as if the pool acquire timed out.
type busyStore struct{ *fakeStore }

func (busyStore) Get(context.Context, string, string) ([]byte, error) { return nil, errBusy }
