package k6

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// apiDoc is a /v1/metrics answer in the shape k6 v2.2.0 serves
// (api/v1/metric_jsonapi.go): cumulative samples, a Rate as "rate" only.
func apiDoc(requests int, failedRate float64) string {
	return fmt.Sprintf(`{"data":[
{"type":"metrics","id":"http_req_duration","attributes":{"type":"trend","contains":"time","tainted":null,
 "sample":{"avg":1.2,"max":9,"med":0.9,"min":0.1,"p(90)":2,"p(95)":3}}},
{"type":"metrics","id":"http_req_failed","attributes":{"type":"rate","contains":"default","tainted":null,
 "sample":{"rate":%g}}},
{"type":"metrics","id":"http_reqs","attributes":{"type":"counter","contains":"default","tainted":null,
 "sample":{"count":%d,"rate":512.5}}}]}`, failedRate, requests)
}

func TestPoller(t *testing.T) {
	t.Parallel()
	answers := []string{
		apiDoc(100, 0.1),
		apiDoc(250, 0.1),
	}
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/metrics" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(answers[min(n, len(answers)-1)]))
		n++
	}))
	var got []results.Interval
	p := newPoller(strings.TrimPrefix(srv.URL, "http://"), func(iv results.Interval) { got = append(got, iv) })

	down := newPoller("127.0.0.1:1", func(iv results.Interval) { t.Errorf("emitted %+v with the API down", iv) })
	down.poll(t.Context(), 0.5)

	p.poll(t.Context(), 1)
	p.poll(t.Context(), 2)
	srv.Close()
	p.poll(t.Context(), 3) // API gone: nothing emitted, nothing lost
	want := []results.Interval{
		{T: 1, Requests: 100, Errors: 10},
		{T: 2, Requests: 150, Errors: 15},
	}
	if !slices.Equal(got, want) {
		t.Errorf("intervals = %+v, want %+v", got, want)
	}
}
