package compose

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/sweep"
)

// Deps lists the services to start before the target: every other service
// but those that depend on the target, directly or through others (they
// start with it).
func (b Base) Deps(target string) []string {
	after := map[string]bool{target: true}
	for grew := true; grew; {
		grew = false
		for _, svc := range b.Services {
			if after[svc] {
				continue
			}
			for _, d := range b.DependsOn[svc] {
				if after[d] {
					after[svc], grew = true, true
					break
				}
			}
		}
	}
	var deps []string
	for _, svc := range b.Services {
		if !after[svc] {
			deps = append(deps, svc)
		}
	}
	return deps
}

// StartDeps brings up, with cfg's override, the services Base.Deps names,
// then waits until every container of theirs is ready: healthy when it
// has a healthcheck, running otherwise, or exited with code 0 (a one-shot
// service that did its work). The first Apply then starts the target, so
// a depends_on without a condition never meets a database that is still
// starting. A dependency that exits otherwise fails at once
// (ErrDependencyExited); one not ready after timeout gives sweep.ErrNotReady
// naming it.
func (s *Stack) StartDeps(ctx context.Context, cfg sweep.TargetConfig, timeout time.Duration) error {
	deps := s.base.Deps(s.opts.Service)
	if len(deps) == 0 {
		return nil
	}
	inv, err := s.writeOverride(cfg)
	if err != nil {
		return err
	}
	if err := s.compose(ctx, inv, UpServices(deps...)); err != nil {
		return fmt.Errorf("compose up %s: %w", strings.Join(deps, " "), err)
	}
	return s.waitDeps(ctx, deps, timeout)
}

// waitDeps polls the dependencies' containers until all are ready.
func (s *Stack) waitDeps(ctx context.Context, deps []string, timeout time.Duration) error {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	waiting := deps
	for {
		ss, err := s.look(ctx)
		if err == nil {
			var now []string
			now, err = depsReady(ss, deps)
			if err == nil && len(now) == 0 {
				return nil
			}
			if err == nil {
				waiting = now
			}
		}
		// A look the deadline cut short keeps what the last whole look saw.
		if err != nil && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
			if parent.Err() != nil { // the caller's end, not the timeout
				return fmt.Errorf("wait for %s: %w (still waiting for %s)", strings.Join(deps, ", "), context.Cause(parent), strings.Join(waiting, "; "))
			}
			return fmt.Errorf("%w: after %s, still waiting for %s", sweep.ErrNotReady, timeout, strings.Join(waiting, "; "))
		case <-tick.C:
		}
	}
}

// depsReady says which dependencies are not ready yet, and fails when one
// exited with an error or died.
func depsReady(ss states, deps []string) ([]string, error) {
	var waiting []string
	for _, svc := range deps {
		found := false
		for _, st := range ss {
			if st.service != svc {
				continue
			}
			found = true
			switch {
			case st.status == container.StateDead || (st.status == container.StateExited && st.exitCode != 0):
				return nil, fmt.Errorf("%w: %s: status %s, exit code %d", ErrDependencyExited, svc, st.status, st.exitCode)
			case st.status == container.StateExited:
			case !st.running || st.paused || (st.health != "" && st.health != container.Healthy):
				waiting = append(waiting, fmt.Sprintf("%s (status %s%s)", svc, st.status, healthNote(st.health)))
			}
		}
		if !found {
			waiting = append(waiting, svc+" (no container)")
		}
	}
	return waiting, nil
}

func healthNote(h container.HealthStatus) string {
	if h == "" {
		return ""
	}
	return ", health " + string(h)
}
