package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
)

// TraceStep is what one request step of a traced iteration did (Trace).
type TraceStep struct {
	Scenario string // the scenario's name
	Op       string // the step's operation
	Line     int    // the step's line in the file
	// Method and URL are the request as sent (the base URL with the
	// step's rendered path); empty for a step not sent.
	Method, URL string
	Status      int           // 0 when no response came or the step was not sent
	Latency     time.Duration // from the send (connecting included) to the response's end, or to the failure
	Captured    []scenario.Captured
	// Class is "" for a step that succeeded, else its failure class as
	// the record counts it: http_<status>, capture, skipped, timeout, …
	Class string
	// Body is a failed step's response body, its first
	// results.MaxSampleBody bytes.
	Body string
	Err  error // the transport's error when no whole response came
}

// Traced is a traced iteration of every scenario of a file.
type Traced []TraceStep

// ErrStepFailed marks a traced iteration with a step that failed.
var ErrStepFailed = errors.New("a step failed")

// Failed are the steps that failed.
func (t Traced) Failed() []TraceStep {
	var failed []TraceStep
	for _, s := range t {
		if s.Class != "" {
			failed = append(failed, s)
		}
	}
	return failed
}

// Err is nil when every step succeeded; else it wraps ErrStepFailed and
// names the first failed step (scenario, operation, file line, request,
// why) with its response's sample, and how many others failed.
func (t Traced) Err() error {
	failed := t.Failed()
	if len(failed) == 0 {
		return nil
	}
	s := failed[0]
	msg := fmt.Sprintf("scenario %q, step %q (line %d)", s.Scenario, s.Op, s.Line)
	switch {
	case s.Class == scenario.ClassSkipped:
		msg += " was not sent: it needs a value an earlier step did not capture"
	case s.Err != nil:
		msg += fmt.Sprintf(": %s %s: %s: %v", s.Method, s.URL, s.Class, s.Err)
	case s.Class == scenario.ClassCapture:
		msg += fmt.Sprintf(": %s %s answered %d, but a capture found nothing", s.Method, s.URL, s.Status)
	default:
		msg += fmt.Sprintf(": %s %s answered %d, not a status the step expects", s.Method, s.URL, s.Status)
	}
	if s.Body != "" {
		msg += fmt.Sprintf("; the response began %q", s.Body)
	}
	if len(failed) > 1 {
		msg += fmt.Sprintf(" (and %d more failed steps)", len(failed)-1)
	}
	return fmt.Errorf("%w: %s", ErrStepFailed, msg)
}

// Trace runs one iteration of every scenario of opts' script (the demo's
// CRUD when it has none), in file order, each request after the one
// before over one keep-alive connection to baseURL, and returns what each
// request step did: `sweep check --scenario`, the file tried once by hand
// before a night of load. Steps fail as they would under load. Its error
// is a base URL the driver cannot use (ErrBadRequest), a target that
// could not be connected to, or ctx's; the steps before it are kept.
func Trace(ctx context.Context, opts Options, baseURL string) (Traced, error) {
	d := New(opts)
	if d.opts.Script == nil {
		return nil, fmt.Errorf("scenario %q: %w", d.opts.Scenario, ErrBadRequest)
	}
	t, err := parseTarget(baseURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	var stop stopper
	tr := &tracer{c: newClient(ctx, t, d.opts.Timeout, &stop), vu: d.opts.Script.NewVU(1, d.opts.Seed),
		ops: d.opts.Script.Ops(), base: strings.TrimSuffix(baseURL, "/")}
	defer stop.stop()
	for i, name := range d.opts.Script.Scenarios() {
		tr.scenario = name
		if err := tr.vu.RunScenario(ctx, i, tr, tr); err != nil {
			return tr.steps, err
		}
	}
	return tr.steps, nil
}

// tracer is the scenario.Doer and scenario.Recorder of a trace: it sends
// each request through its client, timed, and keeps each step.
type tracer struct {
	c        *client
	vu       *scenario.VU
	ops      []string // the script's operations
	base     string
	scenario string
	cur      TraceStep // the request Do sent last
	steps    Traced
}

// Do sends req, keeping the body of every response for a failure's
// sample. A failed connect ends the trace: the target is not there.
func (t *tracer) Do(req *scenario.Request, resp *scenario.Response) error {
	req.KeepBody = true
	t.cur = TraceStep{Method: req.Method, URL: t.base + string(req.Path)}
	start := time.Now()
	err := t.c.do(req, resp)
	t.cur.Latency = time.Since(start)
	if err == nil {
		t.cur.Latency = t.c.tm.end.Sub(start)
		return nil
	}
	if ce, ok := errors.AsType[*connectError](err); ok {
		return unreachable{fmt.Errorf("%s %s: %w", req.Method, t.cur.URL, ce)}
	}
	if errors.Is(err, scenario.ErrAbort) {
		return err
	}
	return &requestError{class: classify(err), err: err}
}

// unreachable is a request that could not connect: it ends the trace
// (scenario.ErrAbort) and says only what failed.
type unreachable struct{ err error }

func (u unreachable) Error() string   { return u.err.Error() }
func (u unreachable) Unwrap() []error { return []error{scenario.ErrAbort, u.err} }

// Record keeps the step's outcome with what Do sent and what the step
// captured.
func (t *tracer) Record(o scenario.Outcome) {
	s := TraceStep{}
	if o.Sent {
		s = t.cur
	}
	s.Scenario, s.Op, s.Line = t.scenario, t.ops[o.Op], o.Line
	s.Status, s.Class, s.Err = o.Status, o.Class, o.Err
	if o.Class != "" {
		s.Body = string(o.Body[:min(len(o.Body), results.MaxSampleBody)])
	}
	s.Captured = t.vu.Captured(nil)
	t.steps = append(t.steps, s)
}
