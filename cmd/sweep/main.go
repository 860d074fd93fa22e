// Command sweep finds the web-thread and DB-pool sizes at which a
// PostgreSQL-backed web service gives its best throughput or its lowest
// tail latency for a CPU budget, by running every cell of a grid against a
// real Docker Compose stack under real HTTP load.
//
// main builds the real world (stdio, signals, the environment: read here
// and nowhere else) and calls run; run returns an error and exitCode is the
// one place that turns errors into exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/sweep-tool/sweep/sweep"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitBadInput    = 2
	exitInterrupted = 130
)

func main() {
	ctx, stop := signalContext()
	defer stop()
	err := run(ctx, os.Args[1:], sweep.Env(os.Environ()), os.Stdout, os.Stderr)
	code := exitCode(err)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sweep: "+message(err))
	}
	stop()
	os.Exit(code)
}

// signalContext cancels the context on the first SIGINT or SIGTERM; a
// second one exits at once after best-effort removal of what the current
// run created (see hardExit).
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
		fmt.Fprintln(os.Stderr, "sweep: stopping: finishing the current cell as interrupted and tearing down (Ctrl-C again to exit at once)")
		cancel()
		if _, ok := <-ch; ok {
			hardExit()
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// errFailedCells means the run finished but some cells failed.
var errFailedCells = errors.New("some cells failed")

func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, sweep.ErrBadInput):
		return exitBadInput
	case errors.Is(err, sweep.ErrInterrupted):
		return exitInterrupted
	default: // a failed cell, a run file that could not be written, a regression
		return exitFailure
	}
}

// run runs the command args name in the environment env.
func run(ctx context.Context, args []string, env sweep.Env, stdout, stderr io.Writer) error {
	ctx = withEnv(ctx, env) // ExecuteContext's context is the one the commands get
	root := newRootCmd(ctx, stdout, stderr)
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}
