package scenario

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// Doer sends one request and reads its response; it is the port the
// built-in driver's keep-alive client implements. resp is the VU's own
// and reused: Do sets Status, and Body when req.KeepBody (else it may
// leave it empty), and Headers to the req.KeepHeaders it found, reusing
// their storage. A Doer may keep no reference to req's or resp's slices
// after it returns. The VU sets resp.Status to 0 before each Do, so a Do
// that fails after reading a status line (a body cut short) may leave
// the status there for the outcome.
//
// An error is a request that got no response. Wrapping ErrAbort, it is not
// counted and ends the iteration (the phase ended, or the target could not
// be reached, which the driver counts apart). Otherwise the step fails
// with the class the error's Class() string method gives, or "other".
type Doer interface {
	Do(req *Request, resp *Response) error
}

// Request is one step's request, rendered into the VU's buffers, which the
// next step reuses.
type Request struct {
	Method      string
	Path        []byte   // relative to the base URL; starts with /
	Headers     []Header // the step's headers
	ContentType string   // "" for none; application/json for a json: body
	Body        []byte   // nil when the step sends none
	KeepBody    bool     // a capture of the step reads the body
	KeepHeaders []string // the response headers the step's captures read
}

// Header is one header of a request or a response.
type Header struct {
	Name  string
	Value []byte
}

// Response is what Do read.
type Response struct {
	Status  int
	Body    []byte
	Headers []Header
}

// Outcome is one request step's result, for the driver's record.
type Outcome struct {
	Op     int    // index into Script.Ops
	Line   int    // the step's line in the file
	Status int    // 0 when no status line came or the step was skipped
	Class  string // "" for a success; http_<status>, capture, skipped, or the Doer's
	Sent   bool   // false for a skipped step: it has no latency
	// Body is a failed step's response body as the Doer kept it (whole
	// for a step that captures from it), for the record's sample of the
	// operation's first failure; valid only during Record.
	Body []byte
	Err  error // the Doer's error, when no response came
}

// Recorder counts outcomes; the driver's times each request it sent
// itself, so Record is called right after Do returns.
type Recorder interface {
	Record(o Outcome)
}

// The failure classes the package itself gives, beside http_<status>.
const (
	ClassCapture = "capture" // a capture found nothing in the response
	ClassSkipped = "skipped" // not sent: an earlier capture it needs failed
	ClassOther   = "other"   // a Doer's error without a class
)

// VU is one virtual user's state: its random source, its iteration count
// and the values its current iteration captured. It belongs to one
// goroutine.
type VU struct {
	s       *Script
	id      int64
	rng     *rand.Rand
	iter    int64 // iterations begun before the current one
	vals    []value
	uuid    [36]byte
	hasUUID bool
	timer   *time.Timer

	last       *step // the step of the last outcome recorded, for Captured
	req        Request
	resp       Response
	path, body []byte
	hbuf       [][]byte
}

// value is a captured value; set is cleared when its capture fails.
type value struct {
	b        []byte
	num, set bool
}

// NewVU returns virtual user id, its random choices (scenarios and
// functions) drawn from seed.
func (s *Script) NewVU(id int, seed uint64) *VU {
	v := &VU{s: s, id: int64(id), rng: rand.New(rand.NewPCG(seed, uint64(id))),
		vals: make([]value, len(s.captures)), path: make([]byte, 0, 256), body: make([]byte, 0, 1024)}
	for _, f := range s.flows {
		for _, st := range f.steps {
			for len(v.hbuf) < len(st.headers) {
				v.hbuf = append(v.hbuf, make([]byte, 0, 64))
			}
		}
	}
	return v
}

// Iterate runs one iteration: a scenario picked by weight, its steps in
// order. It returns nil when the iteration ran to its end, else what cut
// it short: ctx's error during a think, or a Doer's ErrAbort.
func (v *VU) Iterate(ctx context.Context, d Doer, rec Recorder) error {
	return v.RunScenario(ctx, v.pick(), d, rec)
}

// RunScenario runs one iteration of scenario i (an index into
// Script.Scenarios) as Iterate runs the one it picks.
func (v *VU) RunScenario(ctx context.Context, i int, d Doer, rec Recorder) error {
	f := &v.s.flows[i]
	for i := range v.vals {
		v.vals[i].set = false
	}
	v.hasUUID = false
	defer func() { v.iter++ }()
	for i := range f.steps {
		st := &f.steps[i]
		var err error
		if st.op < 0 {
			err = v.sleep(ctx, st.think)
		} else {
			err = v.request(st, d, rec)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pick draws a scenario by weight.
func (v *VU) pick() int {
	if len(v.s.flows) == 1 {
		return 0
	}
	r := v.rng.IntN(v.s.total)
	for i, f := range v.s.flows {
		if r -= f.weight; r < 0 {
			return i
		}
	}
	return len(v.s.flows) - 1
}

func (v *VU) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if v.timer == nil {
		v.timer = time.NewTimer(d)
	} else {
		v.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		v.timer.Stop()
		return ctx.Err()
	case <-v.timer.C:
		return nil
	}
}

// request sends one request step and records it.
func (v *VU) request(st *step, d Doer, rec Recorder) error {
	for _, c := range st.captures {
		v.vals[c.slot].set = false
	}
	o := Outcome{Op: st.op, Line: st.line}
	v.last = st
	if !v.ready(st) {
		o.Class = ClassSkipped
		rec.Record(o)
		return nil
	}
	v.render(st)
	v.resp.Status = 0
	err := d.Do(&v.req, &v.resp)
	if errors.Is(err, ErrAbort) {
		return err
	}
	o.Sent = true
	switch {
	case err != nil:
		o.Class, o.Err, o.Status = errorClass(err), err, v.resp.Status
	default:
		o.Status = v.resp.Status
		if o.Class = v.check(st); o.Class == "" {
			o.Class = v.capture(st)
		}
		if o.Class != "" {
			o.Body = v.resp.Body
		}
	}
	rec.Record(o)
	return nil
}

func (v *VU) ready(st *step) bool {
	for _, i := range st.needs {
		if !v.vals[i].set {
			return false
		}
	}
	return true
}

// render fills v.req for st.
func (v *VU) render(st *step) {
	r := &v.req
	r.Method, r.ContentType, r.KeepHeaders = st.method, st.ctype, st.keepHeaders
	r.KeepBody = st.bodyCaptures
	v.path = st.url.render(v.path[:0], v)
	if len(v.path) == 0 || v.path[0] != '/' { // a url that is one captured value
		v.path = append(v.path, 0)
		copy(v.path[1:], v.path)
		v.path[0] = '/'
	}
	r.Path = v.path
	r.Headers = r.Headers[:0]
	for i, h := range st.headers {
		v.hbuf[i] = h.value.render(v.hbuf[i][:0], v)
		r.Headers = append(r.Headers, Header{Name: h.name, Value: v.hbuf[i]})
	}
	r.Body = nil
	if st.hasBody {
		v.body = st.body.render(v.body[:0], v)
		r.Body = v.body
	}
}

// check returns the class of an unexpected status, "" for an expected one.
func (v *VU) check(st *step) string {
	s := v.resp.Status
	if st.expect == nil && s >= 200 && s < 400 || slices.Contains(st.expect, s) {
		return ""
	}
	return HTTPClass(s)
}

func errorClass(err error) string {
	var c interface{ Class() string }
	if errors.As(err, &c) {
		return c.Class()
	}
	return ClassOther
}

// httpClasses holds http_<status> for every status, so a failure does not
// allocate.
var httpClasses = func() (c [600]string) {
	for s := 100; s < len(c); s++ {
		c[s] = "http_" + strconv.Itoa(s)
	}
	return c
}()

// HTTPClass is the failure class of an unexpected status: http_<status>.
func HTTPClass(status int) string {
	if status >= 100 && status < len(httpClasses) {
		return httpClasses[status]
	}
	return "http_" + strconv.Itoa(status)
}
