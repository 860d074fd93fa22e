// Package builtin is sweep's own load driver: closed (a fixed number of
// virtual users) and open (a constant arrival rate of iterations) load,
// each iteration one run of a scenario file (package load/scenario: the
// user's, or the demo's CRUD, or a plain GET for measuring the driver
// itself). It implements sweep.Driver.
//
// Each virtual user is a scenario.VU driven through the user's own client
// (the scenario's Doer) and recorder (its Recorder); every named step is
// an operation of the record (Measurement.Ops, ErrorSamples), in slices
// sized by the script's operations. A step the scenario skipped (it needs
// a value an earlier capture failed to give) counts as a failed request
// of its operation, class "skipped", without a latency. Each user draws
// from a seed of its own (Options.Seed + its index); think steps end
// with the phase. Trace runs one iteration of every scenario of a file,
// a request at a time, and keeps what each step sent, got and captured
// (sweep check --scenario).
//
// It shares the machine with the target, so the CPU it spends per request
// is part of what a sweep measures. That is why it does not use net/http:
// net/http's client costs about 46 µs of CPU per request on the reference
// machine (as hey shows), mostly in its per-connection read and write
// goroutines, channels and header maps. Each virtual user here owns one
// keep-alive HTTP/1.1 connection and drives it from its own goroutine: the
// request is built into a reused buffer and written with one call, the
// response is parsed from a bufio.Reader (Content-Length, chunked, or
// read-to-close bodies), and only the bodies and headers a capture reads
// (and an error's body, for its sample) are kept. fasthttp would be a similar cost but adds a dependency
// with its own connection pool and goroutines; the few hundred lines here
// are all the driver needs. The bench/driver program measures
// the choice (GET of a tiny body, 50 connections, target in its own
// process): on the 2-core reference machine, busy with other work, the
// driver spent 18-26 µs of CPU per request, wrk 16-26, ab 14-22 and hey
// 59-84.
//
// Latency goes into HDR histograms (1 µs resolution, 3 significant digits)
// spread over a few locked shards, so no lock is shared by all virtual
// users; the shards are merged at the end and, for the per-second series,
// swapped once a second (Interval covers whole seconds, and the part of
// the last second up to the phase's end gets an interval of its own).
// Latency is recorded for every request that got a response, whatever its
// status; transport failures once connected (timeouts, a connection
// broken mid-response) count as requests and errors but not as
// latencies. An attempt that failed to connect is no request at all: it
// counts in ConnectErrors only, and its virtual user backs off (5 ms
// doubling up to 1 s, reset once it connects) before trying again; see
// connect.go. BytesSent counts every byte the users wrote to the
// network, for the runner's proof of delivery.
//
// Latency breakdown (Measurement.Breakdown). The client times the phases of
// each request itself, since it is not net/http and httptrace does not
// apply: connect and TLS while dialling (0 on a reused connection, as in
// k6 and ab), sending from the write's start to its end, waiting from the
// end of the write to the first byte (a Peek on the reader), receiving from
// the first byte to the end of the body. That is two timestamps per request
// more than the latency needs (the write's start and the end already
// exist), and three per dial. Each phase has its own HDR histogram per
// shard, merged like the others. Measured with the benchmarks here, the
// phases add about 55 ns of CPU per request to recording (27 to 83 ns) and
// nothing measurable to bench/driver's 18-20 µs per request.
//
// Coordinated omission in the open model: each iteration has a scheduled
// start, start + k/rate. The first request of an iteration is measured from
// that scheduled start when the iteration actually began later (the
// dispatcher or the virtual user ran late: the first request's latency
// carries that lateness), so a stalled driver or target shows as latency
// instead of being left out. Later requests of the
// iteration are intended to start when the previous one ends, which is
// when they start, so they are measured from their send. An iteration that
// finds all MaxVUs busy is not run at all but counted in DroppedIterations
// (as k6's constant-arrival-rate does); the closed model has no schedule
// and measures every request from its send.
package builtin

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/k6scripts"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Scenario names one of the driver's own workloads, run when
// Options.Script is nil.
type Scenario string

// The scenarios.
const (
	// ScenarioCRUD is the demo's CRUD (k6scripts.DemoCRUD): nine linked
	// FHIR resources created, read, updated and deleted (in reverse
	// order). It is the default.
	ScenarioCRUD Scenario = "crud"
	// ScenarioGet sends one GET to the base URL's path with a slash,
	// expecting 200, as operation "read". It exists to measure the driver
	// against wrk and hey.
	ScenarioGet Scenario = "get"
)

// getScript is ScenarioGet as a scenario file.
const getScript = `scenarios:
  - name: get
    flow:
      - get: {name: read, url: /, expect: 200}
`

// builtinScripts are the workloads Scenario names, parsed once. They are
// embedded in the binary and parsed by a test, so a parse error is a
// programming error.
var builtinScripts = sync.OnceValue(func() map[Scenario]*scenario.Script {
	must := func(file string, src []byte) *scenario.Script {
		s, err := scenario.Parse(file, src)
		if err != nil {
			panic(fmt.Sprintf("builtin scenario: %v", err))
		}
		return s
	}
	return map[Scenario]*scenario.Script{
		ScenarioCRUD: must(k6scripts.DemoCRUDFile, k6scripts.DemoCRUD),
		ScenarioGet:  must("get.yaml", []byte(getScript)),
	}
})

// DefaultTimeout bounds one request when Options.Timeout is zero.
const DefaultTimeout = 30 * time.Second

// Options configure the driver for every phase it runs.
type Options struct {
	// Timeout bounds one request, connection set-up included; a request
	// that takes longer counts as a "timeout" error. Zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Script is what one iteration of a virtual user does. Nil means
	// Scenario's.
	Script *scenario.Script
	// Scenario names the driver's own workload, run when Script is nil;
	// empty means ScenarioCRUD.
	Scenario Scenario
	// Seed seeds the virtual users' random draws (scenarios picked by
	// weight, $randomNumber, $randomString, $uuid): user i draws from Seed + i.
	// Zero means a seed of its own for every phase.
	Seed uint64
}

// Driver is the built-in load driver. It keeps no state between phases and
// may run several phases at once.
type Driver struct {
	opts Options
}

var _ sweep.Driver = (*Driver)(nil)

// New returns a driver with opts, defaults filled in.
func New(opts Options) *Driver {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Scenario == "" {
		opts.Scenario = ScenarioCRUD
	}
	if opts.Script == nil {
		opts.Script = builtinScripts()[opts.Scenario] // nil for an unknown one, which Check refuses
	}
	return &Driver{opts: opts}
}

// Name is "builtin".
func (d *Driver) Name() string { return "builtin" }

// Run drives req's load model against req.BaseURL for req.Duration. When
// ctx is cancelled it stops within milliseconds and returns what it had
// measured with ctx's error, wrapped. When req.Stop is closed it stops as
// promptly and returns what it measured without an error: DurationS is
// the phase's real length and the rates are over it; requests cut short
// by the stop are not counted, as at the end of the duration.
func (d *Driver) Run(ctx context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	t, err := d.check(req)
	if err != nil {
		return results.Measurement{}, err
	}
	m := newPhase(ctx, d.opts, req, t).run()
	if err := ctx.Err(); err != nil {
		return m, fmt.Errorf("builtin load: %w", err)
	}
	return m, nil
}

// ErrBadRequest marks a LoadRequest the driver cannot run.
var ErrBadRequest = errors.New("invalid load request")

// Check returns an error wrapping ErrBadRequest when Run would refuse req
// before sending anything: an unknown scenario or load model, no duration,
// no users, a base URL that is not http(s) with a host.
func (d *Driver) Check(req sweep.LoadRequest) error {
	_, err := d.check(req)
	return err
}

// check validates req and parses its base URL.
func (d *Driver) check(req sweep.LoadRequest) (*target, error) {
	if err := d.validate(req); err != nil {
		return nil, err
	}
	t, err := parseTarget(req.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return t, nil
}

func (d *Driver) validate(req sweep.LoadRequest) error {
	if d.opts.Script == nil {
		return fmt.Errorf("scenario %q: %w", d.opts.Scenario, ErrBadRequest)
	}
	if req.Duration <= 0 {
		return fmt.Errorf("duration %s: %w", req.Duration, ErrBadRequest)
	}
	l := req.Load
	switch l.Model {
	case "closed":
		if l.VUs < 1 {
			return fmt.Errorf("closed model with %d vus: %w", l.VUs, ErrBadRequest)
		}
	case "open":
		if l.Rate <= 0 || max(l.MaxVUs, l.VUs) < 1 {
			return fmt.Errorf("open model needs rate > 0 and max_vus or vus >= 1: %w", ErrBadRequest)
		}
	default:
		return fmt.Errorf("load model %q: %w", l.Model, ErrBadRequest)
	}
	return nil
}
