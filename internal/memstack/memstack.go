// Package memstack is a sweep.Stack in memory for the unit tests of the
// strategies that drive a real sweep.Runner (strategy/halving, strategy/repeat):
// it applies each cell's configuration and reads it back as an engine
// that obeys the override does, and its stack never changes.
package memstack

import (
	"context"
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Stack keeps the last configuration applied. Every Apply recreates the
// target as a real backend does: a new container, c1, c2, … in the order
// of the applies, whose ReadBack reports it.
type Stack struct {
	Last sweep.TargetConfig
	// Applied is the directory of every Apply (TargetConfig.Dir: the
	// job's), in order.
	Applied []string
}

// StartDeps starts nothing.
func (s *Stack) StartDeps(context.Context, sweep.TargetConfig, time.Duration) error { return nil }

// Apply keeps cfg as the target's configuration, on a new container.
func (s *Stack) Apply(_ context.Context, cfg sweep.TargetConfig) error {
	s.Last = cfg
	s.Applied = append(s.Applied, cfg.Dir)
	return nil
}

// WaitReady is ready at once.
func (s *Stack) WaitReady(context.Context, time.Duration) error { return nil }

// ReadBack reports the last configuration as applied, on the container
// the last Apply created.
func (s *Stack) ReadBack(context.Context) (results.Applied, error) {
	return results.Applied{CPUs: s.Last.CPUs, Env: s.Last.Env, ContainerID: fmt.Sprint("c", len(s.Applied))}, nil
}

// Logs has none.
func (s *Stack) Logs(context.Context, int) (string, error) { return "", nil }

// Down stops nothing.
func (s *Stack) Down(context.Context) error { return nil }

// Watch sees no change.
func (s *Stack) Watch(context.Context) (sweep.StackWatch, error) {
	return quiet{make(chan struct{})}, nil
}

type quiet struct{ changed chan struct{} }

func (w quiet) Changed() <-chan struct{}                           { return w.changed }
func (w quiet) Stop(context.Context) ([]results.StackEvent, error) { return nil, nil }
