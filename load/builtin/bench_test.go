package builtin

import (
	"testing"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
)

// cannedServer answers every GET on every connection with a tiny 200; it
// is cheap so that a benchmark mostly measures the client.
func cannedServer(b *testing.B) string {
	b.Helper()
	resp := []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")
	return cannedHTTP(b, func([]byte) []byte { return resp })
}

// BenchmarkClientGet is one keep-alive GET round trip over loopback, the
// server in the same process (go run ./bench/driver measures
// with the server apart).
func BenchmarkClientGet(b *testing.B) {
	tg, err := parseTarget(cannedServer(b))
	if err != nil {
		b.Fatal(err)
	}
	var stop stopper
	c := newClient(b.Context(), tg, time.Second, &stop)
	defer stop.stop()
	req := scenario.Request{Method: "GET", Path: []byte("/")}
	var resp scenario.Response
	b.ReportAllocs()
	for b.Loop() {
		if err := c.do(&req, &resp); err != nil || resp.Status != 200 {
			b.Fatalf("status %d err %v", resp.Status, err)
		}
	}
}

// BenchmarkRecord is the cost of recording one request, its phases
// included, with intervals on.
func BenchmarkRecord(b *testing.B) {
	r := newRecorder(1, testOps, time.Minute, true)
	s := r.shardFor(0)
	start := time.Now()
	tm := timing{writeStart: start.Add(3 * time.Microsecond), writeEnd: start.Add(9 * time.Microsecond),
		firstByte: start.Add(1200 * time.Microsecond), end: start.Add(1234 * time.Microsecond)}
	b.ReportAllocs()
	for b.Loop() {
		s.record(opRead, &tm, start, "", r.highestUS)
	}
}
