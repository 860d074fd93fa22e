// Package remote runs sweep's built-in load driver, or k6 (see k6.go),
// away from sweep's own process: as a one-shot Docker Swarm service on a
// node of the user's choosing, or a Kubernetes Job (package kube), so
// that load and target need not share a machine's cores.
//
// It owns both ends of one small protocol. The far end is Serve, which the
// hidden `sweep drive` command calls inside the service's container: it
// reads a Request (a sweep.LoadRequest without its callbacks), runs the
// built-in driver, and prints the driver's results.Measurement as one
// framed JSON document on stdout, after one frame per second of the phase
// when asked. The near end is Driver, a sweep.Driver that creates the
// service (restart condition none, placed by constraints, labelled with
// the run's labels), follows its logs through the swarm manager, hands the
// per-second frames to the runner as they come, and removes the service
// when the result is in, the phase is cancelled or the wait runs out.
//
// Results travel in the service's logs because that is the one channel
// every swarm has from any node back to a manager client: no volume, no
// port from the orchestrator to the node, no shell in the image. Frames
// are lines that start with FramePrefix, so the parser ignores whatever
// else the container prints, and long documents are cut into lines well
// under the 16 KiB at which Docker's log drivers split a line.
//
// The Request travels the other way in one environment variable,
// RequestEnv, as JSON; a user's scenario file rides in it as its text
// (Source), which the far end parses again with scenario.Parse, so the
// load runs the very flows sweep checked and `docker service inspect`
// or the Job's pod spec shows what was sent. Linux takes no environment
// string over 128 KiB, so a request is at most MaxRequestSize and a
// scenario file 4 KiB less (CheckRequest, which the driver's makers call
// before anything starts). A scenario that size is hundreds of steps; a
// larger one is refused rather than carried in a Docker config or a
// ConfigMap, one more object per phase to create, label and remove on
// each platform. The far end refuses a request with keys it does not
// know: a request from a newer sweep than its image fails rather than
// running another load.
package remote

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// RequestEnv is the environment variable through which Driver hands the
// Request to `sweep drive` in the service's container.
const RequestEnv = "SWEEP_DRIVE_REQUEST"

// Request is one phase of load as it travels to the far end: the
// sweep.LoadRequest's values and the built-in driver's options. Durations
// are Go duration strings ("10s"), readable in `docker service inspect`.
type Request struct {
	// BaseURL is the target's base URL as the load's node reaches it.
	BaseURL string `json:"base_url"`
	// Load is the load model, as in sweep.LoadRequest.
	Load results.LoadInfo `json:"load"`
	// Duration is the phase's length.
	Duration string `json:"duration"`
	// Warmup is true for the discarded warm-up phase.
	Warmup bool `json:"warmup,omitempty"`
	// Intervals asks for one interval frame per second of the phase.
	Intervals bool `json:"intervals,omitempty"`
	// Scenario and Timeout are the built-in driver's options; empty for
	// its defaults.
	Scenario string `json:"scenario,omitempty"`
	Timeout  string `json:"timeout,omitempty"`
	// Script is the scenario file the built-in driver runs instead of
	// Scenario (builtin.Options.Script), parsed again on the far end.
	Script *Source `json:"script,omitempty"`
	// K6, when set, runs the phase with k6 instead of the built-in
	// driver (see K6Request); the built-in options above are then unset.
	K6 *K6Request `json:"k6,omitempty"`
}

// Source is a scenario file as it travels (scenario.Script's Source):
// its base name, which the far end's errors name, and its text, kept as
// a string so that the request stays readable where the platform shows
// it.
type Source struct {
	File string `json:"file"`
	YAML string `json:"yaml"`
}

// ErrBadRequest marks a Request the far end cannot run.
var ErrBadRequest = errors.New("invalid drive request")

// NewRequest is the Request for req and the built-in driver's opts.
func NewRequest(req sweep.LoadRequest, opts builtin.Options) Request {
	r := phaseRequest(req)
	r.Scenario = string(opts.Scenario)
	if opts.Timeout > 0 {
		r.Timeout = opts.Timeout.String()
	}
	if opts.Script != nil {
		file, data := opts.Script.Source()
		r.Script = &Source{File: file, YAML: string(data)}
	}
	return r
}

// phaseRequest is the Request of req's phase, without a driver's options.
func phaseRequest(req sweep.LoadRequest) Request {
	return Request{
		BaseURL:   req.BaseURL,
		Load:      req.Load,
		Duration:  req.Duration.String(),
		Warmup:    req.Warmup,
		Intervals: req.Interval != nil,
	}
}

// DecodeRequest reads a Request from JSON, refusing unknown keys (a
// request from a newer sweep than the image's is an error, not a
// different load).
func DecodeRequest(data []byte) (Request, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Request
	if err := dec.Decode(&r); err != nil {
		return Request{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%w: more than one JSON document", ErrBadRequest)
	}
	return r, nil
}

// ReadRequest decodes the far end's Request: from text when it is not
// empty, else from the variable RequestEnv (read through getenv), else
// from stdin.
func ReadRequest(text string, getenv func(string) string, stdin io.Reader) (Request, error) {
	if text == "" {
		text = getenv(RequestEnv)
	}
	if text != "" {
		return DecodeRequest([]byte(text))
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return Request{}, fmt.Errorf("%w: read stdin: %w", ErrBadRequest, err)
	}
	return DecodeRequest(data)
}

// phase is the sweep.LoadRequest r describes; the callbacks and the
// directory are the caller's.
func (r Request) phase() (sweep.LoadRequest, error) {
	d, err := time.ParseDuration(r.Duration)
	if err != nil {
		return sweep.LoadRequest{}, fmt.Errorf("%w: duration: %w", ErrBadRequest, err)
	}
	return sweep.LoadRequest{BaseURL: r.BaseURL, Load: r.Load, Duration: d, Warmup: r.Warmup}, nil
}

// loadRequest is the sweep.LoadRequest and built-in driver options r
// describes; the callbacks are the caller's.
func (r Request) loadRequest() (sweep.LoadRequest, builtin.Options, error) {
	lr, err := r.phase()
	if err != nil {
		return sweep.LoadRequest{}, builtin.Options{}, err
	}
	opts := builtin.Options{Scenario: builtin.Scenario(r.Scenario)}
	if r.Timeout != "" {
		if opts.Timeout, err = time.ParseDuration(r.Timeout); err != nil {
			return sweep.LoadRequest{}, builtin.Options{}, fmt.Errorf("%w: timeout: %w", ErrBadRequest, err)
		}
	}
	if r.Script != nil {
		// a file that does not parse here (another sweep's subset) is
		// refused with its file:line: key, as sweep itself would
		if opts.Script, err = scenario.Parse(r.Script.File, []byte(r.Script.YAML)); err != nil {
			return sweep.LoadRequest{}, builtin.Options{}, fmt.Errorf("%w: scenario %w", ErrBadRequest, err)
		}
	}
	return lr, opts, nil
}

// Result is the far end's last frame: what the built-in driver returned.
type Result struct {
	// Measurement is the driver's record, exactly as it returned it.
	Measurement results.Measurement `json:"measurement"`
	// CPUSeconds is the CPU time the drive process spent over the phase
	// (with k6's, its child, in a k6 phase), and WallSeconds the phase's
	// wall time as that process saw it.
	CPUSeconds  float64 `json:"cpu_s"`
	WallSeconds float64 `json:"wall_s"`
	// Error is the driver's error, when it returned one.
	Error string `json:"error,omitempty"`
	// Files are what k6 left in the phase's directory (its summary
	// export, its log, the config sweep gave it), by base name, for the
	// near end to keep in the cell's directory as a local k6 leaves them
	// (see keptFiles).
	Files map[string]string `json:"files,omitempty"`
}
