// Command demoapp is the bundled demo target of sweep: a FHIR-like CRUD
// service over PostgreSQL whose knobs have the names of Aidbox's
// (BOX_WEB_THREAD, BOX_DB_POOL_MAXIMUM_POOL_SIZE, BOX_INSTANCE_NAME), so a
// sweep over it behaves like a sweep over the real thing: a bounded number
// of requests run at once, a pgx pool of fixed size serves them, and a
// background task holds a few connections now and then.
//
// It is not imported by the orchestrator; it ships as a FROM-scratch image
// built by compose/demo/images.sh. "demoapp healthcheck" is the image's
// Docker healthcheck because the image has no curl.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// exitError carries a process exit code out of run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// crashCode is the exit status of the crash faults.
const crashCode = 3

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "demoapp:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}

// run serves until ctx is cancelled, or runs the healthcheck subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthcheck(ctx, orDefault(getenv("PORT"), "8080"))
	}
	if len(args) > 0 {
		return &exitError{code: 2, err: fmt.Errorf("unknown arguments %q (want none or \"healthcheck\")", args)}
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("config: %w", err)}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("instance", cfg.Instance)
	logSettings(log, cfg)
	if cfg.Fault.Kind == faultCrash {
		return &exitError{code: crashCode, err: errors.New("fault: crash at start-up")}
	}
	st, err := openPG(ctx, cfg.DSN, cfg.PoolSize, cfg.AcquireTimeout, cfg.DBWait)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", ":"+cfg.Port)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return serve(ctx, cfg, st, ln, log)
}

// serve runs the HTTP server and the background task on ln until ctx is
// cancelled (graceful shutdown) or a crash-after fault fires.
func serve(ctx context.Context, cfg config, st store, ln net.Listener, log *slog.Logger) error {
	srv := &http.Server{
		Handler:           newServer(cfg, st, log).Handler(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	bgCtx, stopBg := context.WithCancel(ctx)
	bgDone := make(chan struct{})
	go func() {
		defer close(bgDone)
		background(bgCtx, st, cfg, log)
	}()
	defer func() { stopBg(); <-bgDone }()

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String())

	var crash <-chan time.Time
	if cfg.Fault.Kind == faultCrashAfter {
		crash = time.After(cfg.Fault.After)
	}
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-crash:
		_ = srv.Close()
		return &exitError{code: crashCode, err: fmt.Errorf("fault: crash after %s", cfg.Fault.After)}
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// background holds cfg.BgConns connections for cfg.BgHold every
// cfg.BgEvery. Failures (a saturated pool) are counted and logged at most
// once a minute so that a sweep's log stays readable.
func background(ctx context.Context, st store, cfg config, log *slog.Logger) {
	if cfg.BgConns == 0 || cfg.BgEvery <= 0 {
		return
	}
	tick := time.NewTicker(cfg.BgEvery)
	defer tick.Stop()
	var failed int
	var lastLog time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := st.Hold(ctx, cfg.BgConns, cfg.BgHold); err != nil && ctx.Err() == nil {
			failed++
			if time.Since(lastLog) > time.Minute {
				log.Warn("background task", "failures", failed, "err", err)
				lastLog = time.Now()
			}
		}
	}
}

// logSettings writes the one start-up line with the effective settings.
func logSettings(log *slog.Logger, cfg config) {
	log.Info("demoapp starting",
		"port", cfg.Port,
		"web_threads", cfg.WebThreads,
		"db_pool", cfg.PoolSize,
		"db", redactDSN(cfg.DSN),
		"acquire_timeout", cfg.AcquireTimeout,
		"bg_conns", cfg.BgConns, "bg_every", cfg.BgEvery, "bg_hold", cfg.BgHold,
		"fault", cfg.Fault.String(),
	)
}

// healthcheck asks the local server's /health and fails unless it is 200.
func healthcheck(ctx context.Context, port string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+port+"/health", nil)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	resp, err := (&http.Client{Timeout: 8 * time.Second}).Do(req)
	if err != nil {
		return &exitError{code: 1, err: fmt.Errorf("healthcheck: %w", err)}
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &exitError{code: 1, err: fmt.Errorf("healthcheck: status %d", resp.StatusCode)}
	}
	return nil
}
