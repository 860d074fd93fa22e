package builtin

import (
	"bufio"
	"bytes"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// crudServer answers the demo's CRUD from canned responses: a POST with
// 201 and a body carrying an id, a GET or PUT with 200 and a resource, a
// DELETE with 204. It reads each request's body, and is cheap so that a
// benchmark mostly measures the driver.
func crudServer(b *testing.B) string {
	b.Helper()
	doc := `{"resourceType":"Encounter","id":"r42","meta":{"versionId":"1","lastUpdated":"2024-01-01T00:00:00Z"},"status":"in-progress","subject":{"reference":"Patient/r1"}}`
	canned := func(status string, body string) []byte {
		return []byte("HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	}
	created, ok, deleted := canned("201 Created", doc), canned("200 OK", doc), []byte("HTTP/1.1 204 No Content\r\n\r\n")
	return cannedHTTP(b, func(line []byte) []byte {
		switch {
		case bytes.HasPrefix(line, []byte("POST ")):
			return created
		case bytes.HasPrefix(line, []byte("DELETE ")):
			return deleted
		}
		return ok
	})
}

// cannedHTTP serves keep-alive HTTP/1.1 on a loopback port for the length
// of the benchmark: it reads each request's head and body and writes the
// response answer gives for its request line.
func cannedHTTP(b *testing.B, answer func(requestLine []byte) []byte) string {
	b.Helper()
	return serveRaw(b, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			resp := answer(line)
			n := 0
			for {
				h, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				if len(h) <= 2 {
					break
				}
				if v, found := bytes.CutPrefix(h, []byte("Content-Length: ")); found {
					n, _ = strconv.Atoi(string(bytes.TrimSpace(v)))
				}
			}
			if _, err := br.Discard(n); err != nil {
				return
			}
			if _, err := c.Write(resp); err != nil {
				return
			}
		}
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDemoIteration is one iteration of the demo's CRUD (36
// requests) by one virtual user against crudServer in the same process;
// it reports the process's CPU per request (driver and server together)
// and the wall time per request.
func BenchmarkDemoIteration(b *testing.B) {
	url := crudServer(b)
	tg, err := parseTarget(url)
	if err != nil {
		b.Fatal(err)
	}
	req := sweep.LoadRequest{BaseURL: url, Load: closed(1), Duration: time.Hour}
	p := newPhase(b.Context(), New(Options{Timeout: 5 * time.Second}).opts, req, tg)
	p.ctx = b.Context()
	u := p.newUser(0)
	defer p.stop.stop()
	b.ReportAllocs()
	cpu0, wall0 := cpuTime(b), time.Now()
	for b.Loop() {
		u.iterate(time.Time{})
	}
	cpu, wall := cpuTime(b)-cpu0, time.Since(wall0)
	m := p.rec.measurement(time.Second, u.iterations, 0)
	if m.ErrorRate != 0 || m.Requests == 0 {
		b.Fatalf("%d requests, errors %v", m.Requests, m.Errors)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(m.Requests), "cpu-ns/req")
	b.ReportMetric(float64(wall.Nanoseconds())/float64(m.Requests), "ns/req")
}
