package session

import (
	"context"
	"errors"
	"time"

	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/k6"
	"github.com/sweep-tool/sweep/load/remote"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
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
	if spec.LoadAway() {
		if err := remote.CheckRequest(opts); err != nil {
			return builtin.Options{}, &sweep.BadInputError{Field: "scenario", Msg: err.Error(), Err: err}
		}
	}
	return opts, nil
}

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
	if spec.K6Away() {
		return s.k6AwayCheck(ctx)
	}
	if spec.Driver == "builtin" || spec.Scenario != nil || spec.LoadAway() {
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
	if err := k6Phases(s.spec); err != nil {
		return nil, "", err
	}
	version, err := k6.Version(ctx, bin)
	if err != nil {
		return nil, "", sweep.BadInput("k6", "%v", err)
	}
	d := k6.New(k6.Options{Binary: bin, Script: s.spec.Script, WebDashboard: s.opts.K6Dashboard})
	if err := s.checkK6Load(ctx, d); err != nil {
		return nil, "", err
	}
	return d, version, nil
}

// k6Phases refuses phases shorter than k6 runs.
func k6Phases(spec sweep.Spec) error {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"warmup", spec.Warmup.Std()}, {"duration", spec.Duration.Std()}} {
		if d.v > 0 && d.v < time.Second {
			return sweep.BadInput(d.flag, "k6 runs phases of at least 1s; give 1s or more (or {driver} builtin)")
		}
	}
	return nil
}

// checkK6Load has k6 load the user's script before anything starts (see
// k6.Driver.CheckLoad): a script k6 cannot load, or whose options would
// replace sweep's load, is bad input; what gives way is told.
func (s *Session) checkK6Load(ctx context.Context, d *k6.Driver) error {
	notice, err := s.spec.CheckLoad(ctx, d, s.opts.Jobs)
	if errors.Is(err, k6.ErrScript) || errors.Is(err, k6.ErrClash) || errors.Is(err, sweep.ErrFileChanged) {
		return sweep.BadInput("script", "%v", err)
	}
	if err != nil {
		return err
	}
	if notice != "" {
		s.notify(DriverNotice{Text: notice})
	}
	return nil
}

// k6AwayCheck checks, before anything starts, a k6 that drives the load
// away from sweep's process (a Kubernetes Job or a service on a swarm
// node, from the spec's k6 image; see placeLoad): its phases, the user's
// script's travel in the far end's request and, with a k6 here (on PATH or the k6 option), the script as
// a local k6 checks it; the k6 of the image checks it again at each
// phase. No k6 here is no error: the image's k6 is the one that runs. It
// returns a stand-in driver of the name k6 until the stack's driver
// replaces it; no version (the image's k6 is not asked before it runs).
func (s *Session) k6AwayCheck(ctx context.Context) (sweep.Driver, string, error) {
	spec := s.spec
	if s.opts.K6Dashboard {
		return nil, "", sweep.BadInput("k6_dashboard", "k6's web dashboard is exported by a k6 in sweep's process; drop {k6_dashboard} with {k6_image}")
	}
	if err := k6Phases(spec); err != nil {
		return nil, "", err
	}
	script, err := remote.ScriptOf(spec.Script)
	if err == nil {
		err = remote.CheckK6Script(script)
	}
	if err != nil {
		return nil, "", &sweep.BadInputError{Field: "script", Msg: err.Error(), Err: err}
	}
	bin, err := k6.Find(s.opts.K6)
	switch {
	case err != nil && s.opts.K6 != "":
		return nil, "", sweep.BadInput("k6", "%v", err)
	case err == nil && spec.Script != nil:
		if _, err := k6.Version(ctx, bin); err != nil {
			return nil, "", sweep.BadInput("k6", "%v", err)
		}
		if err := s.checkK6Load(ctx, k6.New(k6.Options{Binary: bin, Script: spec.Script})); err != nil {
			return nil, "", err
		}
	}
	return awayK6{}, "", nil
}

// awayK6 stands for the k6 driver of a load away from sweep's process
// between the driver's check and the stack's driver (placeLoad); it runs
// nothing.
type awayK6 struct{}

func (awayK6) Name() string { return "k6" }

func (awayK6) Run(context.Context, sweep.LoadRequest) (results.Measurement, error) {
	return results.Measurement{}, errors.New("k6 away from sweep's process: no driver placed yet")
}
