package compose

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
// paused by the time it is unpaused is no error. It names what it thawed.
func thaw(ctx context.Context, eng engine.Engine, opts container.ListOptions) ([]string, error) {
	opts.All = true
	opts.Filters = opts.Filters.Clone()
	opts.Filters.Add("status", "paused")
	list, err := eng.ContainerList(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list paused containers: %w", err)
	}
	var thawed []string
	var errs []error
	for _, c := range list {
		name := c.ID[:min(12, len(c.ID))]
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		uctx, cancel := context.WithTimeout(ctx, unpauseTimeout)
		err := eng.ContainerUnpause(uctx, c.ID)
		cancel()
		switch {
		case err == nil:
			thawed = append(thawed, name)
		case !stillPaused(ctx, eng, c.ID):
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			errs = append(errs, fmt.Errorf("unpause %s: the engine did not answer in %s (its cgroup freezer may be stuck)", name, unpauseTimeout))
		default:
			errs = append(errs, fmt.Errorf("unpause %s: %w", name, err))
		}
	}
	return thawed, errors.Join(errs...)
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
