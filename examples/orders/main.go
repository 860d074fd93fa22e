// Command orders is an example target of sweep unlike the demo's FHIR-like
// API: an order service over PostgreSQL with integer ids (a bigserial),
// order lines in a table of their own, partial updates and a search of a
// customer's orders. Its knobs have names of its own: ORDERS_WORKERS (how
// many requests are handled at once, a semaphore of worker slots) and
// ORDERS_DB_POOL (the pgx pool's maximum), with ORDERS_DSN and
// ORDERS_INSTANCE; it logs the values it applied at start and reports them
// on /healthz.
//
//	POST   /api/orders                {customer, items: [{sku, qty}], total} → 201 {"order_id": 17}, Location
//	GET    /api/orders/{id}           → 200 the order, 404
//	PATCH  /api/orders/{id}           {status | customer | total} → 200 the order, 404
//	DELETE /api/orders/{id}           → 204, 404
//	GET    /api/customers/{c}/orders  → 200 the customer's newest 50 orders
//	GET    /healthz                   → 200 when the database answers
//
// It ships as a one-file image (compose/demo/images.sh orders); "orders
// healthcheck" is that image's Docker healthcheck, as it has no shell.
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "orders:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	os.Exit(1)
}

// run serves until ctx is cancelled, or runs the healthcheck subcommand.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if len(args) == 1 && args[0] == "healthcheck" {
		return healthcheck(ctx, port)
	}
	if len(args) > 0 {
		return &exitError{code: 2, err: fmt.Errorf("unknown arguments %q (want none or \"healthcheck\")", args)}
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("config: %w", err)}
	}
	log := slog.New(slog.NewTextHandler(stderr, nil)).With("instance", cfg.Instance)
	log.Info("orders starting", "port", cfg.Port, "workers", cfg.Workers, "db_pool", cfg.DBPool,
		"db", redactDSN(cfg.DSN), "acquire_timeout", cfg.AcquireTimeout)
	st, err := openStore(ctx, cfg.DSN, cfg.DBPool, cfg.AcquireTimeout, cfg.DBWait)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", ":"+cfg.Port)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return serve(ctx, newServer(cfg, st, log), ln, log)
}

// serve runs the HTTP server on ln until ctx is cancelled, then shuts it
// down gracefully.
func serve(ctx context.Context, s *server, ln net.Listener, log *slog.Logger) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "workers", cap(s.slots), "db_pool", s.store.Stats().Max)
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
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

// healthcheck asks the local server's /healthz and fails unless it is 200.
func healthcheck(ctx context.Context, port string) error {
	ctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+port+"/healthz", nil)
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
