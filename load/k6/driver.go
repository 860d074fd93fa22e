// Package k6 drives load with Grafana k6 run as an external program and
// turns what it writes into the same results.Measurement the built-in
// driver fills.
//
// k6 is structured I/O here: the argv comes from a pure function (Args,
// ScriptEnv), the result is read from the file --summary-export writes
// (never from stdout), and the exit code is classified: 0 is a result, 99
// (thresholds crossed) is a result that lists the crossed thresholds, any
// other code fails the cell with the tail of k6's stderr (103, stopped
// from the REST API, is a result when sweep stopped it). While k6 runs,
// its REST API is polled once a second for the per-second figures of
// samples.csv; what k6 did after the last poll (the iterations
// gracefulStop let finish) is taken from the summary. A closed
// LoadRequest.Stop ends the run early through the same API (stop.go).
// k6 runs in its own process group so that a terminal Ctrl-C reaches
// sweep only and k6 receives exactly one SIGINT, from sweep (see
// command).
//
// A user's script is loaded with `k6 inspect` before it runs (CheckLoad);
// its own options decide how sweep's load reaches it (see control), and a
// script whose options would replace sweep's load is refused. The summary
// also says what load ran (vus_max, iterations, duration), which the
// runner holds against the record.
package k6

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/k6scripts"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// The files a run leaves in the cell repetition's directory.
const (
	SummaryFile       = "driver-summary.json"
	WarmupSummaryFile = "warmup-summary.json"
	LogFile           = "k6.log"
	WarmupLogFile     = "k6-warmup.log"
	// ConfigFile and WarmupConfigFile hold the arrival-rate scenario
	// given to a user's script under the open model (--config).
	ConfigFile       = "k6-config.json"
	WarmupConfigFile = "k6-warmup-config.json"
)

// Options configures the k6 driver.
type Options struct {
	// Binary is the k6 executable, as Find returns it.
	Binary string
	// Script is the user's k6 script, run only while its content has the
	// hash the run recorded; nil means the bundled crud.js, copied into
	// each cell directory before it runs.
	Script *sweep.Script
	// ExtraEnv holds extra __ENV settings for the script (e.g. TYPES).
	// Settings sweep owns (BASE_URL, MODEL, DURATION, VUS, RATE, PRE_VUS,
	// MAX_VUS) override them.
	ExtraEnv map[string]string
	// Stderr, when set, receives k6's stderr as it runs (it is also kept
	// in the cell's k6.log).
	Stderr io.Writer
	// GracePeriod is how long k6 may take to stop and write its summary
	// after the SIGINT sent on cancellation before it is killed; 0 means
	// 20 s.
	GracePeriod time.Duration
	// WebDashboard turns on k6's web dashboard for each measured phase
	// and exports its HTML report into the cell repetition's directory
	// (results.K6DashboardFile); see ProcessEnv.
	WebDashboard bool
}

// Driver is the k6 load driver; it implements sweep.Driver and
// sweep.LoadChecker.
type Driver struct {
	opts Options
	mu   sync.Mutex
	// inspected holds what `k6 inspect` said of the user's script, by
	// the __ENV of a run (a script's options may read __ENV).
	inspected map[string]ScriptOptions
}

var (
	_ sweep.Driver      = (*Driver)(nil)
	_ sweep.LoadChecker = (*Driver)(nil)
)

// New returns a k6 driver. It runs nothing until Run.
func New(opts Options) *Driver {
	if opts.GracePeriod <= 0 {
		opts.GracePeriod = 20 * time.Second
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	return &Driver{opts: opts, inspected: map[string]ScriptOptions{}}
}

// Name returns "k6".
func (d *Driver) Name() string { return "k6" }

// Run runs k6 for one phase and parses its summary export. Crossed
// thresholds (exit 99) are a result listed in ThresholdsFailed; any other
// non-zero exit is an error with the tail of k6's stderr. A cancelled ctx
// stops k6 (SIGINT, then kill after the grace period) and returns an error
// wrapping ctx.Err(). A closed req.Stop stops k6 through its REST API and
// returns the measurement up to then (see stop.go).
func (d *Driver) Run(ctx context.Context, req sweep.LoadRequest) (results.Measurement, error) {
	env, err := ScriptEnv(req, d.opts.ExtraEnv)
	if err != nil {
		return results.Measurement{}, err
	}
	script, err := d.script(req.Dir)
	if err != nil {
		return results.Measurement{}, err
	}
	summaryPath := filepath.Join(req.Dir, pick(req.Warmup, WarmupSummaryFile, SummaryFile))
	if err := os.Remove(summaryPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return results.Measurement{}, fmt.Errorf("remove stale summary: %w", err)
	}
	inv := Invocation{Script: script, SummaryPath: summaryPath, Env: env}
	if err := d.steer(ctx, req, &inv); err != nil {
		return results.Measurement{}, err
	}
	m, err := d.runOnce(ctx, req, inv)
	if exitCode(err) == exitCannotStartAPI && ctx.Err() == nil {
		// The free port was taken between our check and k6's bind.
		m, err = d.runOnce(ctx, req, inv)
	}
	return m, err
}

// script returns the script path to run, writing the bundled scripts
// into dir when the user gave none.
func (d *Driver) script(dir string) (string, error) {
	if d.opts.Script != nil {
		if _, err := d.opts.Script.Verify(); err != nil {
			return "", err
		}
		return d.opts.Script.Path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cell dir: %w", err)
	}
	if err := k6scripts.WriteTo(dir); err != nil {
		return "", fmt.Errorf("bundled k6 script: %w", err)
	}
	return filepath.Join(dir, k6scripts.CRUD), nil
}

// runOnce runs k6 once with a fresh REST API address.
func (d *Driver) runOnce(ctx context.Context, req sweep.LoadRequest, inv Invocation) (results.Measurement, error) {
	addr, err := freeAddress()
	if err != nil {
		return results.Measurement{}, err
	}
	inv.Address = addr
	logf, err := os.Create(filepath.Join(req.Dir, pick(req.Warmup, WarmupLogFile, LogFile)))
	if err != nil {
		return results.Measurement{}, fmt.Errorf("k6 log: %w", err)
	}
	defer logf.Close()
	stderr := &tail{n: 4096}
	cmd := command(ctx, d.opts.Binary, Args(inv), ProcessEnv(req, d.opts.WebDashboard), d.opts.GracePeriod)
	cmd.Stdout = logf
	cmd.Stderr = io.MultiWriter(logf, stderr, d.opts.Stderr)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return results.Measurement{}, fmt.Errorf("start k6: %w", err)
	}
	stopPolling := startPolling(ctx, addr, start, req.Interval)
	endStop := watchStop(ctx, addr, req.Stop)
	err = cmd.Wait()
	polled := stopPolling()
	stop := endStop()
	elapsed := time.Since(start)
	m, err := classify(ctx, err, stderr.String(), inv.SummaryPath, elapsed, stop)
	if err == nil && req.Interval != nil {
		emitTail(req.Interval, m, polled, elapsed)
	}
	return m, err
}

// startPolling polls k6's REST API in the background while k6 runs, when
// the caller wants intervals; the returned func stops it, waits, and
// returns the poller, which holds the totals of its last poll.
func startPolling(ctx context.Context, addr string, start time.Time, emit func(results.Interval)) func() *poller {
	if emit == nil {
		return func() *poller { return &poller{} }
	}
	ctx, cancel := context.WithCancel(ctx)
	p := newPoller(addr, emit)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.run(ctx, start)
	}()
	return func() *poller {
		cancel()
		<-done
		return p
	}
}

// emitTail emits the requests made after the last poll (the last partial
// second and the iterations gracefulStop let finish), taken from the
// summary, so that the intervals add up to the run's requests. A tail
// less than 0.1 s after the last poll is left out: it would fall into the
// same second of samples.csv as that poll.
func emitTail(emit func(results.Interval), m results.Measurement, polled *poller, elapsed time.Duration) {
	failed := int64(math.Round(m.ErrorRate * float64(m.Requests)))
	tail := results.Interval{T: elapsed.Seconds(), Requests: m.Requests - polled.requests, Errors: failed - polled.failed,
		ConnectErrors: max(0, m.ConnectErrors-polled.connect)}
	if tail.Requests+tail.ConnectErrors > 0 && tail.T >= polled.lastT+0.1 {
		tail.Errors = max(tail.Errors, 0)
		emit(tail)
	}
}

// classify turns k6's exit into a Measurement or an error; stop says
// whether sweep stopped the run early (see stop.go).
func classify(ctx context.Context, runErr error, stderr, summaryPath string, elapsed time.Duration,
	stop stopped) (results.Measurement, error) {
	if ctx.Err() != nil {
		return results.Measurement{}, fmt.Errorf("k6 interrupted: %w", ctx.Err())
	}
	if !stop.result(runErr) {
		return results.Measurement{}, exitError(runErr, stderr)
	}
	data, err := os.ReadFile(summaryPath)
	if err != nil {
		return results.Measurement{}, fmt.Errorf("k6 summary export: %w", err)
	}
	m, err := ParseSummary(data)
	if err != nil {
		return results.Measurement{}, fmt.Errorf("k6 summary export %s: %w", filepath.Base(summaryPath), err)
	}
	if m.DurationS == 0 {
		m.DurationS = elapsed.Seconds()
	}
	stop.overPhase(&m, runErr)
	return m, nil
}

func pick(warmup bool, ifWarmup, otherwise string) string {
	if warmup {
		return ifWarmup
	}
	return otherwise
}
