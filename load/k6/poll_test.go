package k6

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// apiMetric is a /v1/metrics/<id> answer in the shape k6 v2.2.0 serves
// (api/v1/metric_jsonapi.go): a cumulative sample, a Rate as "rate" only.
func apiMetric(id, typ, sample string) string {
	return fmt.Sprintf(`{"data":{"type":"metrics","id":%q,"attributes":{"type":%q,"contains":"default",`+
		`"tainted":null,"sample":%s}}}`, id, typ, sample)
}

// fakeAPI serves one answer per poll from answers (requests, failed
// rate, connect_errors count); a negative rate or count makes that metric
// a 404, as before k6 has seen a sample of it. Asking for the whole
// /v1/metrics list is an error.
func fakeAPI(t *testing.T, answers [][3]float64) *httptest.Server {
	t.Helper()
	var n int
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := answers[min(n, len(answers)-1)]
		switch r.URL.Path {
		case "/v1/metrics/http_reqs":
			_, _ = w.Write([]byte(apiMetric("http_reqs", "counter", fmt.Sprintf(`{"count":%g,"rate":512.5}`, a[0]))))
		case "/v1/metrics/http_req_failed":
			if a[1] < 0 {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(apiMetric("http_req_failed", "rate", fmt.Sprintf(`{"rate":%g}`, a[1]))))
		case "/v1/metrics/connect_errors":
			n++
			if a[2] < 0 {
				http.NotFound(w, r)
				return
			}
			_, _ = w.Write([]byte(apiMetric("connect_errors", "counter", fmt.Sprintf(`{"count":%g,"rate":1}`, a[2]))))
		default:
			t.Errorf("poller asked for %s", r.URL.Path)
			http.NotFound(w, r)
		}
	}))
}

func TestPoller(t *testing.T) {
	t.Parallel()
	// k6's counts hold connection-level failures: at t=4, 20 of 300
	// "requests" and 20 of the 50 failed ones were refused connects.
	srv := fakeAPI(t, [][3]float64{{0, -1, -1}, {100, 0.1, -1}, {250, 0.1, 0}, {300, 50.0 / 300, 20}, {400, 70.0 / 400, 30}})
	var got []results.Interval
	p := newPoller(strings.TrimPrefix(srv.URL, "http://"), func(iv results.Interval) { got = append(got, iv) })

	down := newPoller("127.0.0.1:1", func(iv results.Interval) { t.Errorf("emitted %+v with the API down", iv) })
	down.poll(t.Context(), 0.5)

	for _, s := range []float64{1, 2, 3, 4, 5} {
		p.poll(t.Context(), s)
	}
	srv.Close()
	p.poll(t.Context(), 6) // API gone: nothing emitted, nothing lost
	want := []results.Interval{
		{T: 1},
		{T: 2, Requests: 100, Errors: 10},
		{T: 3, Requests: 150, Errors: 15},
		{T: 4, Requests: 30, Errors: 5, ConnectErrors: 20},
		{T: 5, Requests: 90, Errors: 10, ConnectErrors: 10},
	}
	if !slices.Equal(got, want) {
		t.Errorf("intervals = %+v, want %+v", got, want)
	}
}

// TestEmitTail: what k6 did after the last poll comes from the summary.
func TestEmitTail(t *testing.T) {
	t.Parallel()
	m := results.Measurement{Requests: 1000, ErrorRate: 0.1, ConnectErrors: 7}
	tests := []struct {
		name    string
		polled  poller
		elapsed time.Duration
		want    []results.Interval
	}{
		{"tail after the last poll", poller{requests: 900, failed: 80, connect: 7, lastT: 5}, 5400 * time.Millisecond,
			[]results.Interval{{T: 5.4, Requests: 100, Errors: 20}}},
		{"tail too close to the last poll", poller{requests: 900, failed: 80, connect: 7, lastT: 5}, 5050 * time.Millisecond, nil},
		{"nothing after the last poll", poller{requests: 1000, failed: 100, connect: 7, lastT: 5}, 5400 * time.Millisecond, nil},
		{"never polled", poller{}, 2500 * time.Millisecond, []results.Interval{{T: 2.5, Requests: 1000, Errors: 100, ConnectErrors: 7}}},
		{"connect errors after the last poll", poller{requests: 1000, failed: 100, connect: 3, lastT: 5}, 5400 * time.Millisecond,
			[]results.Interval{{T: 5.4, ConnectErrors: 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []results.Interval
			emitTail(func(iv results.Interval) { got = append(got, iv) }, m, &tc.polled, tc.elapsed)
			if !slices.Equal(got, tc.want) {
				t.Errorf("emitted %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestStartPolling: with an emit func the API is polled about once a
// second until stopped, and the poller returned holds the totals; without
// one it is never asked.
func TestStartPolling(t *testing.T) {
	t.Parallel()
	srv := fakeAPI(t, [][3]float64{{100, 0, 0}, {250, 0, 0}})
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	var mu sync.Mutex
	var got []results.Interval
	stop := startPolling(t.Context(), addr, time.Now(), func(iv results.Interval) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, iv)
	})
	time.Sleep(2500 * time.Millisecond)
	p := stop()
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n < 1 || p == nil {
		t.Fatalf("%d intervals emitted in 2.5 s of polling, poller %v; want at least 1", n, p)
	}
	var asked atomic.Bool
	quiet := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Store(true) }))
	defer quiet.Close()
	stop = startPolling(t.Context(), strings.TrimPrefix(quiet.URL, "http://"), time.Now(), nil)
	time.Sleep(1500 * time.Millisecond)
	if p := stop(); p == nil || asked.Load() {
		t.Errorf("no emit func: poller %v, API asked %v; want an empty poller and no request", p, asked.Load())
	}
}
