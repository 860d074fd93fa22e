package remote

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Serve is the far end: it runs req with the built-in driver, or with k6
// when req asks for it (see K6Request; opts say where), and writes to w
// an interval frame for each second of the phase (when req asks for
// them) and then the result frame, or an error frame when req cannot
// run. A closed stop ends the phase early as a normal end, as
// sweep.LoadRequest.Stop does (the `sweep drive` command closes it on
// SIGTERM, which the swarm sends when the service is scaled to zero or
// removed); a cancelled ctx ends it with the driver's error in the result.
// Serve returns an error wrapping ErrBadRequest for a request the driver
// refuses, and the write error when w fails.
func Serve(ctx context.Context, req Request, opts ServeOptions, stop <-chan struct{}, w io.Writer) error {
	fp, err := req.farPhase(ctx, opts)
	if err != nil {
		return reportError(w, err)
	}
	defer fp.cleanup()
	d, lr := fp.driver, fp.req
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
	// the far end's own CPU, and k6's (a child, waited for) in a k6 phase
	cpu0, t0 := sweep.ProcessCPU(), time.Now()
	m, err := d.Run(ctx, lr)
	res := Result{Measurement: m, CPUSeconds: (sweep.ProcessCPU() - cpu0).Seconds(), WallSeconds: time.Since(t0).Seconds()}
	if err != nil {
		res.Error = err.Error()
	}
	if req.K6 != nil {
		res.Files = readKept(lr.Dir)
		res.Measurement.K6Version = fp.k6Version
	}
	write(kindResult, res)
	return werr
}

// farPhase is a phase on the far end: the driver that runs it, the
// phase, what to remove when it is done, and for k6 the version of the
// k6 that runs it.
type farPhase struct {
	driver    sweep.Driver
	req       sweep.LoadRequest
	cleanup   func()
	k6Version string
}

// farPhase prepares r's phase on the far end.
func (r Request) farPhase(ctx context.Context, opts ServeOptions) (farPhase, error) {
	if r.K6 != nil {
		return r.k6Phase(ctx, opts)
	}
	lr, bopts, err := r.loadRequest()
	if err != nil {
		return farPhase{}, err
	}
	d := builtin.New(bopts)
	if err := d.Check(lr); err != nil {
		return farPhase{}, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	return farPhase{driver: d, req: lr, cleanup: func() {}}, nil
}

// reportError writes err as an error frame and returns it, with the write
// error when the frame could not be written.
func reportError(w io.Writer, err error) error {
	if werr := writeFrame(w, kindError, errorDoc{Error: err.Error()}); werr != nil {
		return werr
	}
	return err
}
