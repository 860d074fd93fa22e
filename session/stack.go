package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// Stack is the seam between sweep and a backend: all a session needs of
// a stack, and all a new backend implements (docs/development/architecture.md lists
// it). It is the runner's sweep.Stack (start the dependencies, apply a
// cell, wait until ready, read the applied values back, logs, watch, down)
// and what the session adds: the stack's services and name, the CPUs a
// limit is checked against, the facts sweep.json records, and the
// running containers the samplers read. A backend is built from
// sweep.StackOptions (and its own few options) and speaks only
// backend-neutral types here.
type Stack interface {
	sweep.Stack
	// Services lists the stack's services; Project names it.
	Services() []string
	Project() string
	// NCPU is the CPU count a limit is checked against, before anything
	// starts; Info the facts sweep.json records, after the first Apply.
	NCPU(ctx context.Context) (int, error)
	Info(ctx context.Context) (sweep.StackFacts, error)
	// Containers maps the running services to their containers.
	Containers(ctx context.Context) (map[string]string, error)
}

// Both backends are Stacks.
var (
	_ Stack = (*compose.Stack)(nil)
	_ Stack = (*swarm.Stack)(nil)
)

// buildStacks builds the compose stack, validating files, service, engine
// and the services the axes name. With variants it builds one stack per
// variant, the first the main one.
func (s *Session) buildStacks(ctx context.Context) error {
	if s.spec.Kubernetes {
		var err error
		s.stack, err = s.newStack(ctx, "manifests", s.spec.Manifests)
		return err
	}
	if len(s.spec.Variants) == 0 {
		if len(s.spec.Compose) == 0 {
			return sweep.BadInput("compose", "no compose file; give {compose} FILE (repeatable)")
		}
		var err error
		s.stack, err = s.newStack(ctx, "compose", s.spec.Compose)
		return err
	}
	s.variants = map[string]sweep.Stack{}
	for _, v := range s.spec.Variants {
		st, err := s.newStack(ctx, "variants", v.Files)
		if err != nil {
			return err
		}
		if s.stack == nil {
			s.stack = st
		}
		s.variants[v.Name] = st
		s.stacks = append(s.stacks, st)
	}
	return nil
}

// allStacks is every stack of the run: the variants', or the one.
func (s *Session) allStacks() []Stack {
	if len(s.stacks) > 0 {
		return s.stacks
	}
	return []Stack{s.stack}
}

// newStack builds a compose project of files; the first one built serves
// the samplers' engine and the removal by label.
func (s *Session) newStack(ctx context.Context, field string, files []string) (Stack, error) {
	spec := s.spec
	var st Stack
	var err error
	switch {
	case spec.Kubernetes:
		st, err = s.newKubeStack(ctx, files)
	case spec.Swarm:
		st, err = s.newSwarmStack(ctx, files)
	default:
		st, err = s.newComposeStack(ctx, field, files)
	}
	if err != nil {
		return nil, err
	}
	for _, a := range spec.Axes {
		if a.Service != "" && !slices.Contains(st.Services(), a.Service) {
			return nil, sweep.BadInput("axes", "service %q is not in the stack (%s); services: %s",
				a.Service, strings.Join(files, ", "), strings.Join(st.Services(), ", "))
		}
	}
	if pool := spec.PoolTarget(); pool.Service != "" && !slices.Contains(st.Services(), pool.Service) {
		return nil, sweep.BadInput("pool_env", "service %q is not in the stack (%s); services: %s",
			pool.Service, strings.Join(files, ", "), strings.Join(st.Services(), ", "))
	}
	return st, nil
}

// stackOptions are what every backend is told of a stack of files whose
// target answers at url.
func (s *Session) stackOptions(files []string, url string) sweep.StackOptions {
	return sweep.StackOptions{Files: files, Service: s.spec.Service, RunID: s.runID, RunDir: s.dir,
		ReadyURL: strings.TrimRight(url, "/") + s.spec.ReadyPath, URL: url, SweptEnv: s.spec.SweptEnv(),
		Env: s.opts.Env, Log: s.log}
}

// newComposeStack builds a compose project of files.
func (s *Session) newComposeStack(ctx context.Context, field string, files []string) (Stack, error) {
	st, err := compose.New(ctx, compose.Options{StackOptions: s.stackOptions(files, s.spec.URL)})
	if errors.Is(err, engine.ErrEngine) || errors.Is(err, compose.ErrNoComposeCLI) {
		return nil, sweep.BadInput(field, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	if s.engine == nil {
		s.engine = st.Engine()
		s.cleanup = func(ctx context.Context) error {
			_, err := compose.Cleanup(ctx, st.Engine(), s.runID)
			return err
		}
	}
	return st, nil
}

// newSwarmStack builds files as services of the swarm the client points
// at, placed as the spec's place entries say (a load= entry places the
// load, not a service); what the translation changed goes to the log.
func (s *Session) newSwarmStack(ctx context.Context, files []string) (Stack, error) {
	place, err := swarm.ParsePlace(s.spec.StackPlace())
	if err != nil {
		return nil, err
	}
	return s.swarmStack(ctx, swarm.Options{StackOptions: s.stackOptions(files, s.spec.URL), Place: place})
}

// swarmStack builds the swarm stack opts describe; the first one built
// serves the samplers' engine and the removal by label.
func (s *Session) swarmStack(ctx context.Context, opts swarm.Options) (*swarm.Stack, error) {
	st, err := swarm.New(ctx, opts)
	if errors.Is(err, engine.ErrEngine) || errors.Is(err, swarm.ErrNotSwarm) {
		return nil, sweep.BadInput("swarm", "%v", err)
	}
	if err != nil {
		return nil, err
	}
	for _, n := range st.Notices {
		fmt.Fprintln(s.log, "swarm:", n)
	}
	if s.engine == nil {
		s.engine = st.Engine()
		mgr := st.Manager()
		s.cleanup = func(ctx context.Context) error {
			_, err := swarm.Cleanup(ctx, mgr, s.runID)
			return err
		}
	}
	return st, nil
}

// checkCPUs refuses CPU limits and cpuset CPUs the engine lacks.
func (s *Session) checkCPUs(ctx context.Context) (int, error) {
	n, err := s.stack.NCPU(ctx)
	if err != nil {
		return 0, err
	}
	return n, s.spec.CheckEngineCPUs(n)
}

// release tears down every stack of the run (all at once: the lanes of
// --parallel each wait for their own tasks and containers to go), or
// leaves them up when the spec keeps them. After bad input (a DSN or the
// URL, found on the stack's first start) nothing stays up, kept or not.
func (s *Session) release(ctx context.Context, runErr error) {
	if s.spec.Keep && !errors.Is(runErr, sweep.ErrBadInput) {
		s.notify(Kept{RunID: s.runID, Project: s.stack.Project()})
		return
	}
	stacks := []Stack{s.stack}
	for _, st := range s.stacks {
		if !slices.Contains(stacks, st) {
			stacks = append(stacks, st)
		}
	}
	errs := make([]error, len(stacks))
	var wg sync.WaitGroup
	for i, st := range stacks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = teardown(ctx, s.spec.Service, st)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			s.notify(TeardownFailed{RunID: s.runID, Err: err})
		}
	}
}

// teardown takes stack down, within sweep.DownTimeout even after Ctrl-C.
func teardown(ctx context.Context, service string, stack Stack) error {
	return sweep.Bounded(context.WithoutCancel(ctx), sweep.DownCall(service), stack.Down)
}
