package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWebThreadBound holds handlers inside the store and checks that no
// more than BOX_WEB_THREAD of them get there at once, that the others
// queue and complete later, and that /health still answers meanwhile.
func TestWebThreadBound(t *testing.T) {
	cases := []struct {
		threads  string
		want     int32
		requests int
	}{
		{"1", 1, 4},
		{"2", 2, 6},
	}
	for _, c := range cases {
		t.Run("threads="+c.threads, func(t *testing.T) {
			st := newFakeStore()
			st.gate = make(chan struct{})
			cfg := testConfig(t, map[string]string{"BOX_WEB_THREAD": c.threads})
			ts := httptest.NewServer(newServer(cfg, st, quietLog()).Handler())
			defer ts.Close()

			codes := make(chan int, c.requests)
			var wg sync.WaitGroup
			for range c.requests {
				wg.Go(func() { codes <- post(t, ts.URL+"/Observation") })
			}
			waitFor(t, func() bool { return st.active.Load() == c.want })
			time.Sleep(50 * time.Millisecond) // give extra requests a chance to slip past the bound
			if got := st.active.Load(); got != c.want {
				t.Fatalf("%d handlers in the store, want %d", got, c.want)
			}
			if code := get(t, ts.URL+"/health"); code != http.StatusOK {
				t.Errorf("/health while saturated: %d, want 200", code)
			}
			close(st.gate)
			wg.Wait()
			close(codes)
			for code := range codes {
				if code != http.StatusCreated {
					t.Errorf("queued request got %d, want 201", code)
				}
			}
			if peak := st.peak.Load(); peak != c.want {
				t.Errorf("peak concurrency %d, want %d", peak, c.want)
			}
		})
	}
}

func post(t *testing.T, url string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"status":"final"}`))
	if err != nil {
		t.Error(err)
		return 0
	}
	return send(t, req)
}

func get(t *testing.T, url string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Error(err)
		return 0
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestServe runs the whole server on a loopback listener: graceful stop on
// cancellation, the crash-after fault, and the background task.
func TestServe(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		cancel   time.Duration
		wantCode int // 0: nil error
	}{
		{"graceful stop", map[string]string{"DEMOAPP_BG_EVERY": "10ms"}, 200 * time.Millisecond, 0},
		{"crash-after", map[string]string{"DEMOAPP_FAULT": "crash-after=100ms"}, 5 * time.Second, crashCode},
		{"crash-after for another instance", map[string]string{
			"DEMOAPP_FAULT": "crash-after=50ms", "DEMOAPP_FAULT_WHEN": "other",
		}, 200 * time.Millisecond, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := newFakeStore()
			cfg := testConfig(t, c.env)
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), c.cancel)
			defer cancel()
			err = serve(ctx, cfg, st, ln, quietLog())
			var ee *exitError
			switch {
			case c.wantCode == 0 && err != nil:
				t.Fatalf("serve: %v", err)
			case c.wantCode != 0 && (!errors.As(err, &ee) || ee.code != c.wantCode):
				t.Fatalf("serve returned %v, want exit code %d", err, c.wantCode)
			}
			if c.env["DEMOAPP_BG_EVERY"] != "" && st.holds.Load() == 0 {
				t.Error("background task never held connections")
			}
		})
	}
}

func TestHealthcheckCommand(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		wantFail bool
	}{
		{"healthy", http.StatusOK, false},
		{"unhealthy", http.StatusServiceUnavailable, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/health" {
					t.Errorf("healthcheck asked %s", r.URL.Path)
				}
				w.WriteHeader(c.status)
			}))
			defer ts.Close()
			_, port, _ := net.SplitHostPort(strings.TrimPrefix(ts.URL, "http://"))
			env := map[string]string{"PORT": port}
			err := run(t.Context(), []string{"healthcheck"}, func(k string) string { return env[k] }, nil)
			if (err != nil) != c.wantFail {
				t.Errorf("healthcheck error = %v, want failure %v", err, c.wantFail)
			}
		})
	}
}

func TestRunCrashFault(t *testing.T) {
	env := map[string]string{"DATABASE_URL": "postgres://u:secret@127.0.0.1:1/db", "DEMOAPP_FAULT": "crash"}
	var log strings.Builder
	err := run(t.Context(), nil, func(k string) string { return env[k] }, &log)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != crashCode {
		t.Fatalf("run = %v, want exit code %d", err, crashCode)
	}
	if strings.Contains(log.String(), "secret") {
		t.Errorf("start-up log leaks the password: %s", log.String())
	}
	if !strings.Contains(log.String(), "web_threads=8") {
		t.Errorf("start-up log lacks the settings: %s", log.String())
	}
}
