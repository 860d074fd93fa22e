package session

import (
	"context"
	"errors"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/sweep"
)

// orBuiltin follows k6.Find's error: the other ways past a missing k6.
const orBuiltin = " or pass {k6} PATH, or use {driver} builtin"

// pickDriver picks the load driver: k6 when asked or found, else builtin;
// with k6, its version.
func (s *Session) pickDriver(ctx context.Context) (sweep.Driver, string, error) {
	spec := s.spec
	if spec.Driver == "builtin" || len(spec.LoadPlace()) > 0 || spec.Kubernetes { // a placed load, or a Job: see placeLoad
		if s.opts.K6Dashboard {
			return nil, "", sweep.BadInput("k6_dashboard", "k6's web dashboard needs the k6 driver; drop {driver} builtin or {k6_dashboard}")
		}
		if spec.Script != nil {
			return nil, "", sweep.BadInput("script", "a k6 script runs only with k6; drop {driver} builtin or {script}")
		}
		return builtin.New(builtin.Options{}), "", nil
	}
	bin, err := k6.Find(s.opts.K6)
	switch {
	case err != nil && s.opts.K6 != "":
		return nil, "", sweep.BadInput("k6", "%v%s", err, orBuiltin)
	case err != nil && spec.Driver == "k6":
		return nil, "", sweep.BadInput("driver", "%v%s", err, orBuiltin)
	case err != nil && spec.Script != nil:
		return nil, "", sweep.BadInput("script", "a k6 script runs only with k6: %v%s", err, orBuiltin)
	case err != nil && s.opts.K6Dashboard:
		return nil, "", sweep.BadInput("k6_dashboard", "k6's web dashboard needs k6: %v; pass {k6} PATH or drop {k6_dashboard}", err)
	case err != nil:
		s.notify(NoK6{})
		return builtin.New(builtin.Options{}), "", nil
	}
	return s.k6Driver(ctx, bin)
}

// k6Driver checks the phases, the binary and the user's script (before
// anything starts: a script k6 cannot load, or whose options would
// replace sweep's load, is bad input) and returns the k6 driver with
// k6's version.
func (s *Session) k6Driver(ctx context.Context, bin string) (sweep.Driver, string, error) {
	spec := s.spec
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"warmup", spec.Warmup.Std()}, {"duration", spec.Duration.Std()}} {
		if d.v > 0 && d.v < time.Second {
			return nil, "", sweep.BadInput(d.flag, "k6 runs phases of at least 1s; give 1s or more (or {driver} builtin)")
		}
	}
	version, err := k6.Version(ctx, bin)
	if err != nil {
		return nil, "", sweep.BadInput("k6", "%v", err)
	}
	d := k6.New(k6.Options{Binary: bin, Script: spec.Script, WebDashboard: s.opts.K6Dashboard})
	notice, err := spec.CheckLoad(ctx, d, s.opts.Jobs)
	if errors.Is(err, k6.ErrScript) || errors.Is(err, k6.ErrClash) || errors.Is(err, sweep.ErrFileChanged) {
		return nil, "", sweep.BadInput("script", "%v", err)
	}
	if err != nil {
		return nil, "", err
	}
	if notice != "" {
		s.notify(DriverNotice{Text: notice})
	}
	return d, version, nil
}
