// Package compose runs the system under test as a Docker Compose project:
// it reads the base files with compose v2's own loader (compose-go), so
// interpolation, extends, include, profiles and merging are compose's,
// writes each cell's override file, drives the compose CLI (the v2
// plugin, or docker-compose v1) with argv built by pure functions, and
// talks to the Docker Engine API for what the CLI cannot say reliably:
// readiness, the configuration actually applied, logs, facts and cleanup.
// Everything it starts runs in the project "sweep<run id>" and carries the
// label sweep.run=<run id>, so Cleanup can find it after a crash. It knows
// nothing of cells beyond the sweep.TargetConfig the runner passes.
package compose

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Options configure a Stack: what every backend is told, and the
// engine and compose CLI to use.
type Options struct {
	sweep.StackOptions
	// Engine is the Docker Engine; nil connects to the one Env names.
	Engine engine.Engine
	// CLI is the compose CLI; the zero value detects it with DetectCLI.
	CLI CLI
}

// Stack is a compose project under test. It implements sweep.Stack. Its
// methods are not safe for concurrent use.
type Stack struct {
	opts    Options
	files   []string // absolute base files
	base    Base
	cli     CLI
	eng     engine.Engine
	project string
	labels  sweep.RunLabels
	started bool // the whole stack was brought up once
}

var _ sweep.Stack = (*Stack)(nil)

// New validates the options against the files, the engine and the compose
// CLI before anything starts. Bad files, service or run id give errors
// wrapping sweep.ErrBadInput that name the input; an engine that does not answer
// gives engine.ErrEngine, a missing CLI ErrNoComposeCLI.
func New(ctx context.Context, opts Options) (*Stack, error) {
	s := &Stack{opts: opts, cli: opts.CLI, eng: opts.Engine, project: sweep.ProjectName(opts.RunID)}
	var err error
	if err := s.checkInput(); err != nil {
		return nil, err
	}
	if s.labels, err = opts.RunLabels(); err != nil {
		return nil, err
	}
	base, err := ReadBase(s.files, s.project, opts.Env)
	if err != nil {
		return nil, err
	}
	s.base = base
	if s.eng == nil {
		if s.eng, err = engine.Connect(ctx, opts.Env); err != nil {
			return nil, err
		}
	} else if err := engine.Ping(ctx, s.eng, opts.Env); err != nil {
		return nil, err
	}
	if s.cli.Kind == 0 {
		if s.cli, err = DetectCLI(ctx, opts.Env); err != nil {
			return nil, err
		}
	}
	if err := s.checkService(ctx); err != nil {
		return nil, err
	}
	return s, s.checkImages(ctx)
}

// checkInput checks the run id and that every compose file exists.
func (s *Stack) checkInput() error {
	if strings.ContainsAny(s.opts.RunID, "\n\r\x00") || s.project == "sweep" {
		return sweep.BadInput("run_id", "%q needs at least one letter or digit", s.opts.RunID)
	}
	if len(s.opts.Files) == 0 {
		return sweep.BadInput("compose", "no compose file; give the stack's docker-compose.yml")
	}
	for _, f := range s.opts.Files {
		abs, err := filepath.Abs(f)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return sweep.BadInput("compose", "%s: %v", f, err)
		}
		s.files = append(s.files, abs)
	}
	return nil
}

// checkService asks compose for the services (it also validates the
// files) and checks that the target is one of them.
func (s *Stack) checkService(ctx context.Context) error {
	out, err := run(ctx, s.cli.Argv(s.baseInvocation(), ConfigServices()...), s.opts.Env, nil)
	if err != nil && ctx.Err() != nil { // no answer in time says nothing of the files
		return fmt.Errorf("compose config --services did not answer: %w (%s)", ctx.Err(), s.base.redact(err.Error()))
	}
	if err != nil {
		return sweep.BadInput("compose", "compose rejects the files: %s", s.base.redact(err.Error()))
	}
	services := strings.Fields(string(out))
	slices.Sort(services)
	if !slices.Contains(services, s.opts.Service) || !slices.Contains(s.base.Services, s.opts.Service) {
		return sweep.BadInput("service", "%q is not a service of the stack; services: %s",
			s.opts.Service, strings.Join(services, ", "))
	}
	return nil
}

// baseInvocation runs compose on the base files only.
func (s *Stack) baseInvocation() Invocation {
	return Invocation{Project: s.project, Files: s.files, Compat: s.base.NeedsCompat(s.opts.Service)}
}

// Project is the compose project name of the stack.
func (s *Stack) Project() string { return s.project }

// CLI is the compose CLI the stack runs.
func (s *Stack) CLI() CLI { return s.cli }

// Services lists the services of the base files that compose starts.
func (s *Stack) Services() []string { return slices.Clone(s.base.Services) }

// Engine is the Docker Engine the stack talks to (for samplers and
// Cleanup).
func (s *Stack) Engine() engine.Engine { return s.eng }

// Replicas is the target's replica count in the base files (1 unless
// they scale it).
func (s *Stack) Replicas() int { return s.base.Replicas(s.opts.Service) }

// Apply writes cfg's override to cfg.Dir/override.yaml and runs compose
// up: every service on the first successful call (those StartDeps started
// are up to date by then), then only the target (--no-deps
// --force-recreate) and the services whose env cfg sets. Those it
// recreates are unpaused first if something paused them (see thaw).
func (s *Stack) Apply(ctx context.Context, cfg sweep.TargetConfig) error {
	inv, err := s.writeOverride(cfg)
	if err != nil {
		return err
	}
	env := slices.Sorted(maps.Keys(cfg.ServiceEnv))
	sub := UpTarget(s.opts.Service, env...)
	if !s.started {
		sub = UpAll()
	}
	for _, svc := range append([]string{s.opts.Service}, env...) {
		if err := thaw(ctx, s.eng, containerOf(s.project, svc)); err != nil {
			return fmt.Errorf("compose up %s: %w", s.opts.Service, err)
		}
	}
	if err := s.compose(ctx, inv, sub); err != nil {
		return fmt.Errorf("compose up %s: %w", s.opts.Service, err)
	}
	s.started = true
	return nil
}

// writeOverride writes cfg's override to cfg.Dir/override.yaml and
// returns the invocation with it.
func (s *Stack) writeOverride(cfg sweep.TargetConfig) (Invocation, error) {
	data, err := Override(s.base, s.labels, s.opts.Service, cfg)
	if err != nil {
		return Invocation{}, err
	}
	override, err := filepath.Abs(filepath.Join(cfg.Dir, results.OverrideFile))
	if err != nil {
		return Invocation{}, fmt.Errorf("override: %w", err)
	}
	if err := results.MakeDir(cfg.Dir); err != nil {
		return Invocation{}, err
	}
	if err := results.WriteFileAtomic(override, data); err != nil {
		return Invocation{}, err
	}
	inv := s.baseInvocation()
	inv.Files = append(slices.Clip(inv.Files), override)
	return inv, nil
}

// compose runs one compose subcommand, its output to the stack's Log.
func (s *Stack) compose(ctx context.Context, inv Invocation, sub []string) error {
	out, err := run(ctx, s.cli.Argv(inv, sub...), s.opts.Env, s.opts.Log)
	if s.opts.Log != nil {
		_, _ = s.opts.Log.Write(out)
	}
	return err
}

// Down unpauses what is paused (see thaw), runs compose down (volumes and
// orphans too), then removes by label whatever is left (see Cleanup).
// Pass a context that outlives cancellation, e.g.
// context.WithoutCancel(ctx) with a timeout of a minute: a cancelled ctx
// kills the compose CLI.
func (s *Stack) Down(ctx context.Context) error {
	thawErr := thaw(ctx, s.eng, container.ListOptions{Filters: engine.LabelFilter(projectLabel + "=" + s.project)})
	_, downErr := run(ctx, s.cli.Argv(s.baseInvocation(), Down()...), s.opts.Env, s.opts.Log)
	if downErr != nil {
		downErr = fmt.Errorf("compose down: %w", downErr)
	}
	_, cleanErr := Cleanup(ctx, s.eng, s.opts.RunID)
	s.started = false
	return errors.Join(thawErr, downErr, cleanErr)
}
