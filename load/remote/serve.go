package remote

import (
	"context"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
)

// Serve is the far end: it runs req with the built-in driver and writes
// to w an interval frame for each second of the phase (when req asks for
// them) and then the result frame, or an error frame when req cannot run.
// A closed stop ends the phase early as a normal end, as
// sweep.LoadRequest.Stop does (the `sweep drive` command closes it on
// SIGTERM, which the swarm sends when the service is scaled to zero or
// removed); a cancelled ctx ends it with the driver's error in the result.
// Serve returns an error wrapping ErrBadRequest for a request the driver
// refuses, and the write error when w fails.
func Serve(ctx context.Context, req Request, stop <-chan struct{}, w io.Writer) error {
	lr, opts, err := req.loadRequest()
	if err != nil {
		return reportError(w, err)
	}
	if err := builtin.New(opts).Check(lr); err != nil {
		return reportError(w, fmt.Errorf("%w: %w", ErrBadRequest, err))
	}
	var mu sync.Mutex // one frame at a time
	var werr error
	write := func(kind string, v any) {
		mu.Lock()
		defer mu.Unlock()
		if werr == nil {
			werr = writeFrame(w, kind, v)
		}
	}
	if req.Intervals {
		lr.Interval = func(iv results.Interval) { write(kindInterval, iv) }
	}
	lr.Stop = stop
	cpu0, t0 := processCPU(), time.Now()
	m, err := builtin.New(opts).Run(ctx, lr)
	res := Result{Measurement: m, CPUSeconds: (processCPU() - cpu0).Seconds(), WallSeconds: time.Since(t0).Seconds()}
	if err != nil {
		res.Error = err.Error()
	}
	write(kindResult, res)
	return werr
}

// reportError writes err as an error frame and returns it, with the write
// error when the frame could not be written.
func reportError(w io.Writer, err error) error {
	if werr := writeFrame(w, kindError, errorDoc{Error: err.Error()}); werr != nil {
		return werr
	}
	return err
}

// processCPU is this process's CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
