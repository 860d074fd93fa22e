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

// poller turns k6's REST API (cumulative figures) into per-second
// Intervals for samples.csv. It asks for the two metrics it needs one by
// one (GET /v1/metrics/<id>), never for the whole list: k6 formats every
// trend of the list with percentiles of all samples so far, sorting them
// under the lock its metrics ingester also takes, which costs the
// generator CPU that grows with the run. The API has no p(99) anyway, so
// Interval.P99MS stays 0.
type poller struct {
	base   string
	client *http.Client
	emit   func(results.Interval)
	// The cumulative figures at the last successful poll (requests and
	// failed ones without connection-level failures), and its time.
	requests, failed, connect int64
	lastT                     float64
}

func newPoller(address string, emit func(results.Interval)) *poller {
	return &poller{
		base:   "http://" + address + "/v1/metrics/",
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
	requests, failed, connect, err := p.fetch(ctx)
	if err != nil {
		return
	}
	failed = max(failed, p.failed) // rate × count may round back by one
	p.emit(results.Interval{T: t, Requests: requests - p.requests, Errors: failed - p.failed,
		ConnectErrors: connect - p.connect})
	p.requests, p.failed, p.connect, p.lastT = requests, failed, connect, t
}

// metricDoc is the JSON:API document k6 serves at /v1/metrics/<id>
// (api/v1/metric_jsonapi.go): a counter's sample has "count" and "rate",
// a Rate metric's sample only "rate".
type metricDoc struct {
	Data struct {
		Attributes struct {
			Sample map[string]float64 `json:"sample"`
		} `json:"attributes"`
	} `json:"data"`
}

// fetch returns the cumulative requests and failed requests that got an
// HTTP answer, and the connection-level failures (connect_errors), which
// k6 counts in http_reqs and http_req_failed too. The API gives
// http_req_failed only as a rate; every request adds one sample to it and
// to http_reqs, so failed = rate × requests.
func (p *poller) fetch(ctx context.Context) (requests, failed, connect int64, err error) {
	reqs, err := p.sample(ctx, "http_reqs")
	if err != nil {
		return 0, 0, 0, err
	}
	rate, err := p.sample(ctx, "http_req_failed")
	if err != nil {
		return 0, 0, 0, err
	}
	conn, err := p.sample(ctx, connectErrors)
	if err != nil {
		return 0, 0, 0, err
	}
	all, connect := int64(reqs["count"]), int64(conn["count"])
	failed = int64(math.Round(rate["rate"] * float64(all)))
	return all - connect, max(0, failed-connect), connect, nil
}

// sample reads one metric's cumulative sample. A metric k6 has not
// observed yet (no request made) is a 404 and reads as empty.
func (p *poller) sample(ctx context.Context, id string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+id, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, nil
	default:
		return nil, fmt.Errorf("k6 api %s: %s", id, resp.Status)
	}
	var doc metricDoc
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		return nil, fmt.Errorf("k6 api %s: %w", id, err)
	}
	return doc.Data.Attributes.Sample, nil
}
