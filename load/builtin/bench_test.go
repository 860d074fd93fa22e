package builtin

import (
	"testing"
	"time"
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
	b.ReportAllocs()
	for b.Loop() {
		if status, err := c.do("GET", tg.uri, nil, false); err != nil || status != 200 {
			b.Fatalf("status %d err %v", status, err)
		}
	}
}

// BenchmarkRecord is the cost of recording one request, its phases
// included, with intervals on.
func BenchmarkRecord(b *testing.B) {
	r := newRecorder(1, time.Minute, true)
	s := r.shardFor(0)
	start := time.Now()
	tm := timing{writeStart: start.Add(3 * time.Microsecond), writeEnd: start.Add(9 * time.Microsecond),
		firstByte: start.Add(1200 * time.Microsecond), end: start.Add(1234 * time.Microsecond)}
	b.ReportAllocs()
	for b.Loop() {
		s.record(opRead, &tm, start, "", r.highestUS)
	}
}

// BenchmarkCreateBody renders an Encounter body and scans a response for
// its id: the per-create work besides the round trip.
func BenchmarkCreateBody(b *testing.B) {
	ids := [numResources]string{"p1", "l1", "o1", "pr1"}
	resp := []byte(`{"resourceType":"Encounter","meta":{"versionId":"1","lastUpdated":"2024-01-01T00:00:00Z"},"id":"enc-123456","status":"in-progress"}`)
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = resources[iEncounter].create.render(buf[:0], &ids, "", 42)
		if _, ok := topLevelID(resp); !ok {
			b.Fatal("no id")
		}
	}
}
