package results

// Breakdown splits request latency into the phases of an HTTP request, as
// ab's connect / processing / waiting table and k6's http_req_* trends do.
// Every phase is a distribution over the requests that got a response, in
// milliseconds, with the same statistics as Measurement.LatencyMS, so a k6
// trend (http_req_connecting, http_req_tls_handshaking, http_req_sending,
// http_req_waiting, http_req_receiving) fills a phase exactly as
// http_req_duration fills LatencyMS.
//
// As in k6 and ab, a request sent on a kept-alive connection counts 0 ms
// for Connect and TLS, so their percentiles stay 0 while most requests
// reuse a connection and their Max shows what a dial cost. The phases add
// up to about the request's latency; the rest is a retry on a connection
// the server had closed and, in the open model, the wait behind schedule.
type Breakdown struct {
	// Connect is the TCP connection set-up (0 for a reused connection).
	Connect Latency `json:"connect"`
	// TLS is the TLS handshake (0 for plain http or a reused connection).
	TLS Latency `json:"tls"`
	// Sending is writing the request.
	Sending Latency `json:"sending"`
	// Waiting is from the end of the write to the response's first byte
	// (time to first byte: the server's processing).
	Waiting Latency `json:"waiting"`
	// Receiving is from the first byte to the end of the body.
	Receiving Latency `json:"receiving"`
	// NewConnections counts the requests that opened a connection; 0 when
	// the driver cannot tell (k6's summary has no such count).
	NewConnections int64 `json:"new_connections,omitempty"`
}

// Phase is one named phase of a Breakdown.
type Phase struct {
	// Name is the phase's JSON key: connect, tls, sending, waiting or
	// receiving.
	Name    string
	Latency Latency
}

// Phases lists b's phases in the order a request goes through them.
func (b *Breakdown) Phases() []Phase {
	return []Phase{
		{"connect", b.Connect}, {"tls", b.TLS}, {"sending", b.Sending},
		{"waiting", b.Waiting}, {"receiving", b.Receiving},
	}
}
