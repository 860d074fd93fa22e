package k6

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// poller turns k6's REST API (GET /v1/metrics, cumulative figures) into
// per-second Intervals for samples.csv. The API serves trends only as
// cumulative avg/med/p(90)/p(95) without p(99), so Interval.P99MS stays 0.
type poller struct {
	url    string
	client *http.Client
	emit   func(results.Interval)
	// The cumulative figures at the last successful poll.
	requests, failed int64
}

func newPoller(address string, emit func(results.Interval)) *poller {
	return &poller{
		url:    "http://" + address + "/v1/metrics",
		client: &http.Client{Timeout: 800 * time.Millisecond},
		emit:   emit,
	}
}

// run polls once a second until ctx ends; t of each Interval is seconds
// since start.
func (p *poller) run(ctx context.Context, start time.Time) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			p.poll(ctx, now.Sub(start).Seconds())
		}
	}
}

// poll reads the metrics once and emits the change since the last
// successful poll. An API that is not up yet (k6 still starting) or
// already gone is not an error: that second is skipped and the next
// successful poll carries its requests.
func (p *poller) poll(ctx context.Context, t float64) {
	requests, failed, err := p.fetch(ctx)
	if err != nil {
		return
	}
	failed = max(failed, p.failed) // rate × count may round back by one
	p.emit(results.Interval{T: t, Requests: requests - p.requests, Errors: failed - p.failed})
	p.requests, p.failed = requests, failed
}

// metricsDoc is the JSON:API document k6 serves at /v1/metrics.
type metricsDoc struct {
	Data []struct {
		ID         string `json:"id"`
		Attributes struct {
			Sample map[string]float64 `json:"sample"`
		} `json:"attributes"`
	} `json:"data"`
}

// fetch returns the cumulative request count and failed-request count.
// The API gives http_req_failed only as a rate; every request adds one
// sample to it and to http_reqs, so failed = rate × requests.
func (p *poller) fetch(ctx context.Context) (requests, failed int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("k6 api: %s", resp.Status)
	}
	var doc metricsDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return 0, 0, fmt.Errorf("k6 api: %w", err)
	}
	var rate float64
	for _, m := range doc.Data {
		switch m.ID {
		case "http_reqs":
			requests = int64(m.Attributes.Sample["count"])
		case "http_req_failed":
			rate = m.Attributes.Sample["rate"]
		}
	}
	return requests, int64(math.Round(rate * float64(requests))), nil
}
