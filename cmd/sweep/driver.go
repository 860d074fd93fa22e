package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/sweep"
)

// driver picks the load driver: k6 when asked or found, else builtin.
func (e *runEnv) driver(ctx context.Context, spec sweep.Spec) (sweep.Driver, string, error) {
	if spec.Driver == "builtin" {
		if spec.Script != nil {
			return nil, "", sweep.BadInput("script", "a k6 script runs only with k6; drop --driver builtin or --script")
		}
		return builtin.New(builtin.Options{}), "", nil
	}
	bin, err := k6.Find(e.k6Path)
	switch {
	case err != nil && e.k6Path != "":
		return nil, "", sweep.BadInput("k6", "%v", err)
	case err != nil && spec.Driver == "k6":
		return nil, "", sweep.BadInput("driver", "%v", err)
	case err != nil && spec.Script != nil:
		return nil, "", sweep.BadInput("script", "a k6 script runs only with k6: %v", err)
	case err != nil:
		fmt.Fprintln(e.stderr, "sweep: k6 not found on PATH; using the built-in driver (--driver builtin)")
		return builtin.New(builtin.Options{}), "", nil
	}
	return e.k6Driver(ctx, spec, bin)
}

// k6Driver checks the phases, the binary and the user's script (before
// anything starts: a script k6 cannot load, or whose options would
// replace sweep's load, is bad input) and returns the k6 driver with
// k6's version.
func (e *runEnv) k6Driver(ctx context.Context, spec sweep.Spec, bin string) (sweep.Driver, string, error) {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"warmup", spec.Warmup.Std()}, {"duration", spec.Duration.Std()}} {
		if d.v > 0 && d.v < time.Second {
			return nil, "", sweep.BadInput(d.flag, "k6 runs phases of at least 1s; give 1s or more (or --driver builtin)")
		}
	}
	version, err := k6.Version(ctx, bin)
	if err != nil {
		return nil, "", sweep.BadInput("k6", "%v", err)
	}
	d := k6.New(k6.Options{Binary: bin, Script: spec.Script})
	notice, err := spec.CheckLoad(ctx, d, e.jobs)
	if errors.Is(err, k6.ErrScript) || errors.Is(err, k6.ErrClash) || errors.Is(err, sweep.ErrScriptChanged) {
		return nil, "", sweep.BadInput("script", "%v", err)
	}
	if err != nil {
		return nil, "", err
	}
	if notice != "" {
		fmt.Fprintf(e.stderr, "sweep: %s\n", notice)
	}
	return d, version, nil
}
