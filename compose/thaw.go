package compose

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
)

// unpauseTimeout bounds one unpause: an engine that does not answer it
// fails the call in seconds instead of hanging a run.
var unpauseTimeout = 30 * time.Second

// thaw unpauses the paused containers that opts select, before they are
// recreated, stopped or removed: a frozen process cannot take the signal
// that stops it, and on cgroup v1 a container removed while frozen (or
// while something else unpauses it) has left its freezer FROZEN and the
// engine's calls on it hanging. A container that is gone or no longer
// paused by the time it is unpaused is no error; an unpause the engine
// does not answer in unpauseTimeout is, naming the container.
func thaw(ctx context.Context, eng engine.Engine, opts container.ListOptions) error {
	opts.All = true
	opts.Filters = opts.Filters.Clone()
	opts.Filters.Add("status", "paused")
	list, err := eng.ContainerList(ctx, opts)
	if err != nil {
		return fmt.Errorf("list paused containers: %w", err)
	}
	var errs []error
	for _, c := range list {
		uctx, cancel := context.WithTimeout(ctx, unpauseTimeout)
		err := eng.ContainerUnpause(uctx, c.ID)
		cancel()
		switch {
		case err == nil:
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			errs = append(errs, fmt.Errorf("unpause %s: the engine did not answer in %s (its cgroup freezer may be stuck)", containerName(c), unpauseTimeout))
		case stillPaused(ctx, eng, c.ID):
			errs = append(errs, fmt.Errorf("unpause %s: %w", containerName(c), err))
		}
	}
	return errors.Join(errs...)
}

// stillPaused reports whether id is (as far as the engine says within
// unpauseTimeout) still paused: an unpause that failed because another
// caller unpaused or removed the container first did what thaw wants.
func stillPaused(ctx context.Context, eng engine.Engine, id string) bool {
	ctx, cancel := context.WithTimeout(ctx, unpauseTimeout)
	defer cancel()
	c, err := eng.ContainerInspect(ctx, id)
	if cerrdefs.IsNotFound(err) {
		return false
	}
	return err != nil || c.State == nil || c.State.Paused
}
