package remote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/results"
)

// FramePrefix starts every line of the protocol; the version is in it, so
// a far end of another version is not misread: its lines are not frames.
const FramePrefix = "#sweep-drive/1 "

// The kinds of frame. A kind followed by "+" is a part of a longer
// document that the next line of the same kind continues.
const (
	kindInterval = "interval"
	kindResult   = "result"
	kindError    = "error"
)

// maxChunk is the most JSON bytes one line carries: far below the 16 KiB
// at which Docker's log drivers cut a line in two.
const maxChunk = 4096

// tailLines is how many lines that are not frames a parser keeps, to show
// what the far end said when it gave no result.
const tailLines = 20

// ErrFraming marks log lines that break the framing: a document cut off,
// or one whose JSON does not decode.
var ErrFraming = errors.New("malformed drive frame")

// writeFrame writes v as JSON in lines of kind, cut at maxChunk, with one
// Write so that frames written concurrently do not interleave.
func writeFrame(w io.Writer, kind string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s frame: %w", kind, err)
	}
	var buf bytes.Buffer
	for {
		part, more := data, len(data) > maxChunk
		if more {
			part = data[:maxChunk]
		}
		buf.WriteString(FramePrefix)
		buf.WriteString(kind)
		if more {
			buf.WriteByte('+')
		}
		buf.WriteByte(' ')
		buf.Write(part)
		buf.WriteByte('\n')
		if !more {
			break
		}
		data = data[maxChunk:]
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// frame is one whole document read back.
type frame struct {
	kind string
	data []byte
}

// parser assembles frames from lines and keeps the last lines that were
// not frames.
type parser struct {
	kind string // kind of the document being assembled; "" for none
	buf  []byte
	tail []string
}

// line takes one line (without its newline) and returns a whole frame when
// the line completed one.
func (p *parser) line(line []byte) (frame, bool, error) {
	line = bytes.TrimRight(line, "\r\n")
	rest, ok := bytes.CutPrefix(line, []byte(FramePrefix))
	if !ok {
		p.keep(string(line))
		return frame{}, false, nil
	}
	kind, data, _ := bytes.Cut(rest, []byte(" "))
	k, more := strings.CutSuffix(string(kind), "+")
	if p.kind != "" && p.kind != k {
		return frame{}, false, fmt.Errorf("%w: a %s document cut off by a %s line", ErrFraming, p.kind, k)
	}
	p.buf = append(p.buf, data...)
	if more {
		p.kind = k
		return frame{}, false, nil
	}
	f := frame{kind: k, data: p.buf}
	p.kind, p.buf = "", nil
	return f, true, nil
}

// keep remembers a line that is not a frame.
func (p *parser) keep(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if len(p.tail) == tailLines {
		p.tail = p.tail[1:]
	}
	p.tail = append(p.tail, line)
}

// scan reads lines from r into p until r ends or fn returns an error;
// fn gets every whole frame.
func (p *parser) scan(r io.Reader, fn func(frame) error) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			f, ok, perr := p.line(line)
			if perr != nil {
				return perr
			}
			if ok {
				if ferr := fn(f); ferr != nil {
					return ferr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// decode unmarshals a frame's document into v.
func (f frame) decode(v any) error {
	if err := json.Unmarshal(f.data, v); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrFraming, f.kind, err)
	}
	return nil
}

// errorDoc is the document of an error frame.
type errorDoc struct {
	Error string `json:"error"`
}

// Output is what a far end printed, read through the frame parser: its
// result or error frame (Found), or nothing before the output ended (Err
// says why when reading failed), and the last lines that were not frames.
type Output struct {
	Result *Result
	// FarError is an error frame's message.
	FarError string
	Found    bool
	Err      error
	Tail     []string
}

// ReadOutput reads a far end's output (a container's log as text) until
// its last frame, handing every interval frame to onInterval (nil: they
// are dropped). Wherever the output comes from (a swarm service's logs,
// a Kubernetes pod's), this is how it is read.
func ReadOutput(r io.Reader, onInterval func(results.Interval)) Output {
	var ps parser
	var o Output
	err := ps.scan(r, func(f frame) error {
		switch f.kind {
		case kindInterval:
			var iv results.Interval
			if err := f.decode(&iv); err != nil {
				return err
			}
			if onInterval != nil {
				onInterval(iv)
			}
			return nil
		case kindResult:
			o.Result = new(Result)
			o.Found = true
			if err := f.decode(o.Result); err != nil {
				return err
			}
		case kindError:
			var e errorDoc
			o.Found = true
			if err := f.decode(&e); err != nil {
				return err
			}
			o.FarError = e.Error
		default:
			return nil
		}
		return io.EOF // the last frame: stop reading
	})
	if err == io.EOF {
		err = nil
	}
	o.Err, o.Tail = err, ps.tail
	return o
}

// Measurement is the phase's record from a found last frame: the far
// end's measurement with the node it ran on and the drive process's own
// CPU and wall time; an error frame, or a result that carries the
// driver's error, is ErrFarEnd naming where (e.g. "service sweep-x").
// The files a k6 phase sent back are written into dir (the cell
// repetition's directory; "": none), also when the phase failed.
func (o Output) Measurement(where string, node *results.NodeInfo, dir string) (results.Measurement, error) {
	if o.Result == nil {
		return results.Measurement{}, fmt.Errorf("%w on %s: %s", ErrFarEnd, where, o.FarError)
	}
	if err := o.Result.keep(dir); err != nil {
		return results.Measurement{}, fmt.Errorf("keep the files of %s: %w", where, err)
	}
	m := o.Result.Measurement
	m.LoadNode = node
	m.DriverCPU = time.Duration(o.Result.CPUSeconds * float64(time.Second))
	m.DriverWall = time.Duration(o.Result.WallSeconds * float64(time.Second))
	if o.Result.Error != "" {
		return m, fmt.Errorf("%w on %s: %s", ErrFarEnd, where, o.Result.Error)
	}
	return m, nil
}
