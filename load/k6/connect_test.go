package k6

import (
	"maps"
	"math"
	"testing"
)

// TestConnectErrorsAreNotRequests: k6 counts an attempt refused at
// connect in http_reqs and as failed in http_req_failed; crud.js counts it
// in connect_errors too, and sweep takes it out of requests, RPS and the
// error rate, overall and per op.
func TestConnectErrorsAreNotRequests(t *testing.T) {
	t.Parallel()
	// A real run of crud.js against a closed port: 18 attempts, all refused.
	m := parseFixture(t, "summary-export-refused.json")
	if m.Requests != 0 || m.RPS != 0 || m.ErrorRate != 0 || m.ConnectErrors != 18 ||
		!maps.Equal(m.ConnectErrorKinds, map[string]int64{"refused": 18}) || m.BytesSent != 0 || len(m.Ops) != 0 {
		t.Errorf("refused run: requests %d rps %g errors %g connect %d %v bytes %d ops %v",
			m.Requests, m.RPS, m.ErrorRate, m.ConnectErrors, m.ConnectErrorKinds, m.BytesSent, m.Ops)
	}
	if m.VUsMax != 2 || m.Iterations != 2 || math.Abs(m.DurationS-18/3.1811652924674134) > 1e-9 {
		t.Errorf("vus_max %d, iterations %d, duration %g s", m.VUsMax, m.Iterations, m.DurationS)
	}

	// A healthy run (8892 requests, 2223 creates, none failed) with 10
	// creates cut at connect and 4 more answered with an error.
	data := editFixture(t, "summary-export-ops.json", func(ms map[string]map[string]any) {
		ms["connect_errors"] = map[string]any{"count": 10, "rate": 10 / 2.0193}
		ms["connect_errors{op:create}"] = map[string]any{"count": 10, "rate": 10 / 2.0193}
		ms["connect_errors{kind:reset}"] = map[string]any{"count": 10, "rate": 10 / 2.0193}
		ms["http_req_failed"] = map[string]any{"passes": 14, "fails": 8878, "value": 14 / 8892.0}
		ms["http_req_failed{op:create}"] = map[string]any{"passes": 14, "fails": 2209, "value": 14 / 2223.0}
	})
	m, err := ParseSummary(data)
	if err != nil {
		t.Fatal(err)
	}
	seconds := 8892 / 4403.384038269171
	create := m.Ops["create"]
	switch {
	case m.Requests != 8882 || m.ConnectErrors != 10 || m.ConnectErrorKinds["reset"] != 10:
		t.Errorf("requests %d, connect %d %v; want 8882, 10 resets", m.Requests, m.ConnectErrors, m.ConnectErrorKinds)
	case math.Abs(m.RPS-8882/seconds) > 1e-9 || math.Abs(m.ErrorRate-4/8882.0) > 1e-12:
		t.Errorf("rps %g, error rate %g; want %g, %g", m.RPS, m.ErrorRate, 8882/seconds, 4/8882.0)
	case create.Requests != 2213 || math.Abs(create.ErrorRate-4/2213.0) > 1e-12 || math.Abs(create.RPS-2213/seconds) > 1e-9:
		t.Errorf("create %+v; want 2213 requests, error rate 4/2213", create)
	case m.Ops["read"].Requests != 2223:
		t.Errorf("read %+v lost requests it did not fail", m.Ops["read"])
	}
}
