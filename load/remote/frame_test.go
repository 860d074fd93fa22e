package remote

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/results"
)

// fullResult is a result with every part of a measurement filled in, long
// enough to need several lines.
func fullResult() Result {
	lat := results.Latency{Avg: 1.5, Min: 0.2, P50: 1.1, P75: 1.7, P90: 2.9, P95: 3.3, P99: 7.25, Max: 41}
	ops := map[string]results.OpStats{}
	errs := map[string]int64{}
	for i, op := range []string{"create", "read", "update", "delete"} {
		ops[op] = results.OpStats{Requests: int64(1000 + i), RPS: 100.5 + float64(i), ErrorRate: 0.001, LatencyMS: lat}
	}
	for s := 400; s < 600; s++ {
		errs["http_"+strconv.Itoa(s)] = int64(s)
	}
	pass := 0.999
	return Result{
		Measurement: results.Measurement{
			Requests: 4006, RPS: 402.1, ErrorRate: 0.001, LatencyMS: lat, Ops: ops, Errors: errs,
			ChecksPassRate: &pass, Iterations: 111, IterationsPerS: 11.1, DurationS: 9.96, VUsMax: 8,
			IterationMS: &lat, Breakdown: &results.Breakdown{Connect: lat, TLS: lat, Sending: lat, Waiting: lat, Receiving: lat},
			ConnectErrors: 3, ConnectErrorKinds: map[string]int64{"refused": 3}, BytesSent: 123456,
		},
		CPUSeconds: 1.25, WallSeconds: 10.01,
	}
}

func TestFramesRoundTrip(t *testing.T) {
	t.Parallel()
	want := fullResult()
	ivs := []results.Interval{{T: 1, Requests: 40, Errors: 1, P99MS: 7}, {T: 2.004, Requests: 41, ConnectErrors: 2}}
	var out bytes.Buffer
	out.WriteString("some line the container printed\n")
	for _, iv := range ivs {
		if err := writeFrame(&out, kindInterval, iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := writeFrame(&out, kindResult, want); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) < 5 {
		t.Fatalf("a %d-byte result should span several lines; got %d lines in all", out.Len(), len(lines))
	}
	for _, l := range lines {
		if len(l) > maxChunk+len(FramePrefix)+len(kindResult)+2 {
			t.Errorf("line of %d bytes exceeds the chunk size", len(l))
		}
	}

	gotIvs, got, tail := readFrames(t, &out)
	if !reflect.DeepEqual(gotIvs, ivs) {
		t.Errorf("intervals = %+v, want %+v", gotIvs, ivs)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("result did not survive the round trip:\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(tail, []string{"some line the container printed"}) {
		t.Errorf("tail = %q", tail)
	}
}

// readFrames parses the far end's output: its intervals, its result (the
// test fails without one) and the last lines that were not frames.
func readFrames(t *testing.T, r io.Reader) ([]results.Interval, Result, []string) {
	t.Helper()
	var ivs []results.Interval
	var res *Result
	var p parser
	err := p.scan(r, func(f frame) error {
		switch f.kind {
		case kindInterval:
			ivs = append(ivs, results.Interval{})
			return f.decode(&ivs[len(ivs)-1])
		case kindResult:
			res = new(Result)
			return f.decode(res)
		}
		return errors.New("unexpected frame " + f.kind)
	})
	if err != nil || res == nil {
		t.Fatalf("frames: %v (result %v)", err, res)
	}
	return ivs, *res, p.tail
}

func TestParserRefusesACutDocument(t *testing.T) {
	t.Parallel()
	in := FramePrefix + "result+ {\"measurement\":\n" + FramePrefix + "interval {\"t\":1}\n"
	var p parser
	err := p.scan(strings.NewReader(in), func(frame) error { return nil })
	if !errors.Is(err, ErrFraming) {
		t.Fatalf("err = %v, want ErrFraming", err)
	}
}

func TestParserKeepsTheLastLinesThatAreNotFrames(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := range tailLines + 5 {
		in.WriteString("line " + string(rune('a'+i)) + "\r\n\n")
	}
	in.WriteString("#sweep-drive/2 result {}\n") // another version's frame is not one
	var p parser
	n := 0
	if err := p.scan(strings.NewReader(in.String()), func(frame) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d frames read from lines that hold none", n)
	}
	if len(p.tail) != tailLines || p.tail[0] != "line g" || p.tail[tailLines-1] != "#sweep-drive/2 result {}" {
		t.Errorf("tail = %q", p.tail)
	}
}

func TestFrameDecodeNamesBadJSON(t *testing.T) {
	t.Parallel()
	var p parser
	f, ok, err := p.line([]byte(FramePrefix + "result {\"measurement\": 3}\n"))
	if err != nil || !ok {
		t.Fatalf("line: %v %v", ok, err)
	}
	var r Result
	if err := f.decode(&r); !errors.Is(err, ErrFraming) {
		t.Fatalf("decode err = %v, want ErrFraming", err)
	}
}
