package session

import (
	"context"
	"errors"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/sweep"
)

// orBuiltin follows k6.Find's error: the other ways past a missing k6.
const orBuiltin = " or pass {k6} PATH, or use {driver} builtin"

// builtinOptions are the built-in driver's options of spec, wherever it
// runs (in this process, as the generator check's reference, on a swarm
// node, as a Kubernetes Job): the spec's scenario file, else the demo's
// CRUD. The file is parsed from the content its recorded hash vouches
// for (Verify), so what runs is what sweep.json says; a file outside the
// subset is bad input of {scenario} carrying every problem's
// file:line:key (the *scenario.Error in its Err), and so is one that
// cannot travel to a load running elsewhere (remote.CheckRequest).
func builtinOptions(spec sweep.Spec) (builtin.Options, error) {
	if spec.Scenario == nil {
		return builtin.Options{}, nil
	}
	data, err := spec.Scenario.Verify()
	if err != nil {
		return builtin.Options{}, sweep.BadInput("scenario", "%v", err)
	}
	script, err := scenario.Parse(spec.Scenario.Path, data)
	if err != nil {
		return builtin.Options{}, &sweep.BadInputError{Field: "scenario", Msg: err.Error(), Err: err}
	}
	opts := builtin.Options{Script: script}
	if loadAway(spec) {
		if err := remote.CheckRequest(opts); err != nil {
			return builtin.Options{}, &sweep.BadInputError{Field: "scenario", Msg: err.Error(), Err: err}
		}
	}
	return opts, nil
}

// loadAway reports whether the load runs away from sweep's process: on a
// swarm node (a load=CONSTRAINT place) or as a Kubernetes Job, the
// built-in driver's in both (see placeLoad).
func loadAway(spec sweep.Spec) bool { return len(spec.LoadPlace()) > 0 || spec.Kubernetes }

// pickDriver picks the load driver: builtin with a scenario file, k6 when
// asked or found, else builtin; with k6, its version. It keeps the
// built-in driver's options (s.builtin) for every built-in driver of the
// session.
func (s *Session) pickDriver(ctx context.Context) (sweep.Driver, string, error) {
	spec := s.spec
	var err error
	if s.builtin, err = builtinOptions(spec); err != nil {
		return nil, "", err
	}
	if spec.Driver == "builtin" || spec.Scenario != nil || loadAway(spec) {
		if s.opts.K6Dashboard {
			return nil, "", sweep.BadInput("k6_dashboard", "k6's web dashboard needs the k6 driver; drop {k6_dashboard}, or {driver} builtin and {scenario}")
		}
		if spec.Script != nil {
			return nil, "", sweep.BadInput("script", "a k6 script runs only with k6; drop {driver} builtin or {script}")
		}
		return builtin.New(s.builtin), "", nil
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
		return builtin.New(s.builtin), "", nil
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
