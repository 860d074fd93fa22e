package builtin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/sweep-tool/sweep/load/scenario"
)

// errProtocol marks a response the driver cannot parse; it is counted as
// "other".
var errProtocol = errors.New("malformed http response")

// readResponse reads one HTTP/1.x response from br. With keep, or when
// the status is 400 or above, the body is stored in *body, otherwise
// discarded; the headers hk names are kept too. closeAfter reports that the server
// will not reuse the connection; fresh that nothing had been read when the
// error happened (the server closed an idle connection).
func readResponse(br *bufio.Reader, keep bool, body *[]byte, hk headerKeep) (status int, closeAfter, fresh bool, err error) {
	for {
		var h header
		h, fresh, err = readHeader(br, hk)
		if err != nil {
			return 0, false, fresh, err
		}
		if h.status >= 100 && h.status < 200 && h.status != 101 {
			continue // an interim response: the real one follows
		}
		// An error's body is kept too: the first of each operation is
		// the sample a failed cell shows (errors are rare, or the cell
		// fails anyway).
		keep := keep || h.status >= 400
		if keep {
			*body = (*body)[:0]
		}
		if err := readBody(br, h, keep, body); err != nil {
			return h.status, false, false, err
		}
		return h.status, h.close, false, nil
	}
}

// header is what the driver needs from a response head.
type header struct {
	status  int
	length  int64 // -1 when absent
	chunked bool
	close   bool
}

// headerKeep names the response headers a caller keeps (a capture's, such
// as Location) and where: into is emptied, then holds each one found,
// reusing its values' storage.
type headerKeep struct {
	names []string
	into  *[]scenario.Header
}

// add keeps the header line name: value when its name is one of hk's.
func (hk headerKeep) add(name, value []byte) {
	for _, n := range hk.names {
		if !bytes.EqualFold(name, []byte(n)) {
			continue
		}
		hs := *hk.into
		if i := len(hs); i < cap(hs) {
			hs = hs[:i+1]
			hs[i].Name, hs[i].Value = n, append(hs[i].Value[:0], value...)
		} else {
			hs = append(hs, scenario.Header{Name: n, Value: bytes.Clone(value)})
		}
		*hk.into = hs
		return
	}
}

func readHeader(br *bufio.Reader, hk headerKeep) (h header, fresh bool, err error) {
	if hk.into != nil {
		*hk.into = (*hk.into)[:0] // an interim response's headers are not the answer's
	}
	line, err := br.ReadSlice('\n')
	if err != nil {
		if len(line) == 0 && br.Buffered() == 0 {
			return h, true, fmt.Errorf("read status line: %w", err)
		}
		return h, false, fmt.Errorf("read status line: %w", lineErr(err))
	}
	h, err = parseStatusLine(line)
	if err != nil {
		return h, false, err
	}
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return h, false, fmt.Errorf("read header: %w", lineErr(err))
		}
		line = trimCRLF(line)
		if len(line) == 0 {
			return h, false, nil
		}
		if err := h.field(line, hk); err != nil {
			return h, false, err
		}
	}
}

// parseStatusLine reads "HTTP/1.1 200 OK". HTTP/1.0 closes by default.
func parseStatusLine(line []byte) (header, error) {
	h := header{length: -1}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return h, fmt.Errorf("status line %q: %w", trimCRLF(line), errProtocol)
	}
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return h, fmt.Errorf("status line %q: %w", trimCRLF(line), errProtocol)
		}
		h.status = h.status*10 + int(d-'0')
	}
	h.close = line[7] == '0'
	return h, nil
}

// field applies one header line to h, and keeps it when hk names it.
func (h *header) field(line []byte, hk headerKeep) error {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return fmt.Errorf("header %q: %w", line, errProtocol)
	}
	name, value := line[:i], bytes.TrimSpace(line[i+1:])
	hk.add(name, value)
	switch {
	case bytes.EqualFold(name, []byte("Content-Length")):
		n, ok := parseDecimal(value)
		if !ok {
			return fmt.Errorf("content-length %q: %w", value, errProtocol)
		}
		h.length = n
	case bytes.EqualFold(name, []byte("Transfer-Encoding")):
		h.chunked = containsFold(value, "chunked")
	case bytes.EqualFold(name, []byte("Connection")):
		if containsFold(value, "close") {
			h.close = true
		} else if containsFold(value, "keep-alive") {
			h.close = false
		}
	}
	return nil
}

func readBody(br *bufio.Reader, h header, keep bool, body *[]byte) error {
	switch {
	case h.status == 204 || h.status == 304:
		return nil
	case h.chunked:
		return readChunked(br, keep, body)
	case h.length >= 0:
		return readN(br, h.length, keep, body)
	default: // delimited by the end of the connection
		if !h.close {
			return fmt.Errorf("body without length on a kept-alive connection: %w", errProtocol)
		}
		return readToEOF(br, keep, body)
	}
}

func readN(br *bufio.Reader, n int64, keep bool, body *[]byte) error {
	if !keep {
		if _, err := br.Discard(int(n)); err != nil {
			return fmt.Errorf("read body: %w", lineErr(err))
		}
		return nil
	}
	if int64(len(*body))+n > maxKeptBody {
		return fmt.Errorf("body over %d bytes: %w", maxKeptBody, errProtocol)
	}
	start := len(*body)
	*body = append(*body, make([]byte, n)...)
	if _, err := io.ReadFull(br, (*body)[start:]); err != nil {
		return fmt.Errorf("read body: %w", lineErr(err))
	}
	return nil
}

func readChunked(br *bufio.Reader, keep bool, body *[]byte) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("read chunk size: %w", lineErr(err))
		}
		line = trimCRLF(line)
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		size, ok := parseHex(bytes.TrimSpace(line))
		if !ok {
			return fmt.Errorf("chunk size %q: %w", line, errProtocol)
		}
		if size == 0 {
			return skipTrailer(br)
		}
		if err := readN(br, size, keep, body); err != nil {
			return err
		}
		if crlf, err := br.ReadSlice('\n'); err != nil || len(trimCRLF(crlf)) != 0 {
			return fmt.Errorf("chunk end: %w", errProtocol)
		}
	}
}

func skipTrailer(br *bufio.Reader) error {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return fmt.Errorf("read trailer: %w", lineErr(err))
		}
		if len(trimCRLF(line)) == 0 {
			return nil
		}
	}
}

func readToEOF(br *bufio.Reader, keep bool, body *[]byte) error {
	var w io.Writer = io.Discard
	if keep {
		w = (*bytesWriter)(body)
	}
	if _, err := io.Copy(w, io.LimitReader(br, maxKeptBody+1)); err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if keep && len(*body) > maxKeptBody {
		return fmt.Errorf("body over %d bytes: %w", maxKeptBody, errProtocol)
	}
	return nil
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// lineErr turns an EOF in the middle of a response into ErrUnexpectedEOF
// and an over-long line into a protocol error.
func lineErr(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	case errors.Is(err, bufio.ErrBufferFull):
		return fmt.Errorf("line too long: %w", errProtocol)
	}
	return err
}

func trimCRLF(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// containsFold reports whether b holds the lowercase word in any case,
// without allocating.
func containsFold(b []byte, word string) bool {
	for i := 0; i+len(word) <= len(b); i++ {
		if bytes.EqualFold(b[i:i+len(word)], []byte(word)) {
			return true
		}
	}
	return false
}

func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}

func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var n int64
	for _, d := range b {
		switch {
		case d >= '0' && d <= '9':
			d -= '0'
		case d >= 'a' && d <= 'f':
			d -= 'a' - 10
		case d >= 'A' && d <= 'F':
			d -= 'A' - 10
		default:
			return 0, false
		}
		n = n<<4 | int64(d)
	}
	return n, true
}
