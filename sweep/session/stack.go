package session

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/sweep-tool/sweep/compose"
	"github.com/sweep-tool/sweep/sweep"
)

// buildStacks builds the compose stack, validating files, service, engine
// and the services the axes name. With variants it builds one stack per
// variant, the first the main one.
func (s *Session) buildStacks(ctx context.Context) error {
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
		st, err := s.newStack(ctx, "variant", v.Files)
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
func (s *Session) allStacks() []*compose.Stack {
	if len(s.stacks) > 0 {
		return s.stacks
	}
	return []*compose.Stack{s.stack}
}

func (s *Session) newStack(ctx context.Context, flag string, files []string) (*compose.Stack, error) {
	spec := s.spec
	st, err := compose.New(ctx, compose.Options{Files: files, Service: spec.Service, RunID: s.runID, RunDir: s.dir,
		ReadyURL: strings.TrimRight(spec.URL, "/") + spec.ReadyPath, SweptEnv: spec.SweptEnv(),
		Stdout: s.log, Stderr: s.log})
	if errors.Is(err, compose.ErrEngine) || errors.Is(err, compose.ErrNoComposeCLI) {
		return nil, sweep.BadInput(flag, "%v", err)
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

// release tears down every stack of the run, or leaves them up when the
// spec keeps them. After bad input (a DSN or the URL, found on the
// stack's first start) nothing stays up, kept or not.
func (s *Session) release(ctx context.Context, runErr error) {
	if s.spec.Keep && !errors.Is(runErr, sweep.ErrBadInput) {
		s.notify(Kept{RunID: s.runID, Project: s.stack.Project()})
		return
	}
	s.teardown(ctx, s.stack)
	for _, st := range s.stacks[min(1, len(s.stacks)):] {
		s.teardown(ctx, st)
	}
}

func (s *Session) teardown(ctx context.Context, stack *compose.Stack) {
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), teardownTimeout)
	defer cancel()
	if err := stack.Down(tctx); err != nil {
		s.notify(TeardownFailed{RunID: s.runID, Err: err})
	}
}
