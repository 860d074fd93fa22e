// Package cpuhog starts and removes a CPU hog beside a stack: a
// container of an image the engine already has running busy loops pinned
// to host CPUs with more than the default CPU shares, so that it takes
// most of those CPUs from a target pinned to them (sweep run --cpuset)
// whatever else the host does. The drift fault test (cmd/sweep's
// TestDriftFlaggedAndRerun) and make bench-interleave share it.
package cpuhog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
)

// Spec is a hog.
type Spec struct {
	// Image is run with /bin/sh as its entrypoint: it needs a shell
	// (the stack's PostgreSQL image has one).
	Image string
	// CPUs is the cpuset the hog is pinned to, e.g. "1".
	CPUs string
	// Loops is the number of busy loops (default 2); Shares its CPU
	// shares (default 2 × the engine's 1024: the drift test's, chosen
	// so that a pinned target keeps about a third of its core).
	Loops  int
	Shares int64
	// Life bounds the hog: the container ends itself after it, whatever
	// becomes of the process that started it.
	Life time.Duration
	// Labels mark the container (a run's sweep.run label makes the run's
	// cleanup remove it too).
	Labels map[string]string
	// AutoRemove has the engine remove the container once it ended.
	AutoRemove bool
}

// Hog is a started hog.
type Hog struct {
	ID string
	// At is when it started.
	At  time.Time
	cli *client.Client
}

// Command is the hog's shell command: s.Loops busy loops in the
// background and a sleep of s.Life in the foreground, whose end ends the
// container and the loops with it.
func (s Spec) Command() string {
	loops := s.Loops
	if loops <= 0 {
		loops = 2
	}
	return strings.Repeat("(while :; do :; done) & ", loops) + fmt.Sprintf("sleep %d", max(int(s.Life.Round(time.Second)/time.Second), 1))
}

// Start creates and starts the hog.
func Start(ctx context.Context, cli *client.Client, s Spec) (*Hog, error) {
	if s.Life <= 0 {
		return nil, fmt.Errorf("cpuhog: give the hog a life (Spec.Life); it would spin on forever")
	}
	shares := s.Shares
	if shares == 0 {
		shares = 2 * 1024
	}
	cfg := &container.Config{Image: s.Image, Entrypoint: []string{"/bin/sh", "-c", s.Command()}, Labels: s.Labels}
	host := &container.HostConfig{AutoRemove: s.AutoRemove, Resources: container.Resources{CpusetCpus: s.CPUs, CPUShares: shares}}
	created, err := cli.ContainerCreate(ctx, cfg, host, nil, nil, "")
	if err != nil {
		return nil, fmt.Errorf("create the CPU hog: %w", err)
	}
	h := &Hog{ID: created.ID, cli: cli}
	if err := cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		_ = h.Remove(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("start the CPU hog: %w", err)
	}
	h.At = time.Now()
	return h, nil
}

// Remove removes the hog, running or not; one already gone is no error.
// It is bounded by a minute, and runs after ctx was cancelled too (a
// test's context is done by its cleanups, a bench's by Ctrl-C).
func (h *Hog) Remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	err := h.cli.ContainerRemove(ctx, h.ID, container.RemoveOptions{Force: true})
	if err != nil && !client.IsErrNotFound(err) && !strings.Contains(err.Error(), "already in progress") {
		return fmt.Errorf("remove the CPU hog: %w", err)
	}
	return nil
}

// Running reports whether the hog's container still runs.
func (h *Hog) Running(ctx context.Context) bool {
	got, err := h.cli.ContainerInspect(ctx, h.ID)
	return err == nil && got.State != nil && got.State.Running
}
