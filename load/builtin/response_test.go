package builtin

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sweep-tool/sweep/load/scenario"
)

func TestReadResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		raw      string
		status   int
		body     string
		close    bool
		wantErr  error // nil, errProtocol or a transport error
		leftover string
	}{
		{"content length", "HTTP/1.1 201 Created\r\nContent-Length: 11\r\n\r\n{\"id\":\"a1\"}NEXT", 201, `{"id":"a1"}`, false, nil, "NEXT"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n{\"id\r\n7\r\n\":\"b2\"}\r\n0\r\nX-Trailer: y\r\n\r\nNEXT", 200, `{"id":"b2"}`, false, nil, "NEXT"},
		{"no content", "HTTP/1.1 204 No Content\r\n\r\nNEXT", 204, "", false, nil, "NEXT"},
		{"interim 100", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokNEXT", 200, "ok", false, nil, "NEXT"},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nok", 200, "ok", true, nil, ""},
		{"http/1.0 closes", "HTTP/1.0 200 OK\r\n\r\nuntil the end", 200, "until the end", true, nil, ""},
		{"http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", 200, "", false, nil, ""},
		{"bad status line", "HTTP/1.1 2x0 OK\r\n\r\n", 0, "", false, errProtocol, ""},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 0, "", false, errProtocol, ""},
		{"bad chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 0, "", false, errProtocol, ""},
		{"no length kept alive", "HTTP/1.1 200 OK\r\n\r\nbody", 0, "", false, errProtocol, ""},
		{"short body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0, "", false, io.ErrUnexpectedEOF, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReader(strings.NewReader(tt.raw))
			var body []byte
			status, closeAfter, _, err := readResponse(br, true, &body, headerKeep{})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			rest, _ := br.Peek(br.Buffered())
			if status != tt.status || string(body) != tt.body || closeAfter != tt.close || string(rest) != tt.leftover {
				t.Errorf("got status %d body %q close %v rest %q, want %d %q %v %q",
					status, body, closeAfter, rest, tt.status, tt.body, tt.close, tt.leftover)
			}
		})
	}
}

// A success's body is discarded without keep; an error's is kept all the
// same, as the sample a failed cell shows.
func TestReadResponseDiscardsBody(t *testing.T) {
	t.Parallel()
	br := bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\ngone"))
	body := []byte("old")
	for _, tc := range []struct {
		status int
		body   string
	}{{200, "old"}, {404, "gone"}} {
		status, _, _, err := readResponse(br, false, &body, headerKeep{})
		if err != nil || status != tc.status {
			t.Fatalf("status %d err %v, want %d", status, err, tc.status)
		}
		if string(body) != tc.body {
			t.Errorf("after %d: body = %q, want %q", status, body, tc.body)
		}
	}
}

func TestReadResponseFreshEOF(t *testing.T) {
	t.Parallel()
	var body []byte
	_, _, fresh, err := readResponse(bufio.NewReader(strings.NewReader("")), false, &body, headerKeep{})
	if err == nil || !fresh {
		t.Errorf("fresh = %v err = %v, want a fresh error on a closed idle connection", fresh, err)
	}
	_, _, fresh, err = readResponse(bufio.NewReader(strings.NewReader("HTTP/1.1 2")), false, &body, headerKeep{})
	if err == nil || fresh {
		t.Errorf("fresh = %v err = %v, want a non-fresh error after part of a response", fresh, err)
	}
}

// TestReadNKeepsAtMostMaxKeptBody: a kept body may fill maxKeptBody
// exactly, counting what earlier chunks kept, and not a byte more.
func TestReadNKeepsAtMostMaxKeptBody(t *testing.T) {
	t.Parallel()
	src := func(n int) *bufio.Reader { return bufio.NewReader(bytes.NewReader(make([]byte, n))) }
	var body []byte
	if err := readN(src(maxKeptBody), maxKeptBody, true, &body); err != nil || len(body) != maxKeptBody {
		t.Fatalf("a body of exactly %d bytes: %v, kept %d", maxKeptBody, err, len(body))
	}
	body = make([]byte, 10)
	if err := readN(src(maxKeptBody-10), maxKeptBody-10, true, &body); err != nil || len(body) != maxKeptBody {
		t.Errorf("a last chunk that fills the limit: %v, kept %d", err, len(body))
	}
	body = make([]byte, 10)
	if err := readN(src(maxKeptBody-9), maxKeptBody-9, true, &body); !errors.Is(err, errProtocol) {
		t.Errorf("a last chunk one byte over the limit: %v, want errProtocol", err)
	}
}

// TestReadToEOFKeepsAtMostMaxKeptBody: a body read to the connection's
// end may fill maxKeptBody exactly, not a byte more.
func TestReadToEOFKeepsAtMostMaxKeptBody(t *testing.T) {
	t.Parallel()
	var body []byte
	if err := readToEOF(bufio.NewReader(bytes.NewReader(make([]byte, maxKeptBody))), true, &body); err != nil || len(body) != maxKeptBody {
		t.Errorf("exactly %d bytes: %v, kept %d", maxKeptBody, err, len(body))
	}
	body = nil
	if err := readToEOF(bufio.NewReader(bytes.NewReader(make([]byte, maxKeptBody+1))), true, &body); !errors.Is(err, errProtocol) {
		t.Errorf("one byte over: %v, want errProtocol", err)
	}
}

// TestContainsFoldStaysInsideTheSlice: bytes past len (a reused buffer's
// old contents) are never read.
func TestContainsFoldStaysInsideTheSlice(t *testing.T) {
	t.Parallel()
	buf := []byte("Keep-Alive, CLOSE")
	if !containsFold(buf, "close") || containsFold(buf[:13], "close") || containsFold(buf[:16], "close") {
		t.Errorf("containsFold read past the slice's length or missed the word")
	}
}

// The headers a capture asks for are kept under the name asked for, in
// any case, from the final response only, reusing their storage.
func TestReadResponseKeepsHeaders(t *testing.T) {
	t.Parallel()
	raw := "HTTP/1.1 100 Continue\r\nLocation: /interim\r\n\r\n" +
		"HTTP/1.1 201 Created\r\nlocation: /api/orders/17\r\nContent-Length: 0\r\nX-Other: y\r\n\r\n"
	hs := []scenario.Header{{Name: "Old", Value: make([]byte, 0, 64)}, {Name: "Older"}}
	var body []byte
	status, _, _, err := readResponse(bufio.NewReader(strings.NewReader(raw)), false, &body,
		headerKeep{names: []string{"Location", "ETag"}, into: &hs})
	if err != nil || status != 201 {
		t.Fatalf("status %d, err %v", status, err)
	}
	if len(hs) != 1 || hs[0].Name != "Location" || string(hs[0].Value) != "/api/orders/17" || cap(hs[0].Value) != 64 {
		t.Errorf("headers %q, want Location: /api/orders/17 in the storage given", hs)
	}
}
