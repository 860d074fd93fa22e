package compose

import (
	"context"
	"errors"
	"fmt"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// Cleaned lists what Cleanup removed (names, or ids when nameless).
type Cleaned struct {
	Containers []string `json:"containers"`
	Networks   []string `json:"networks"`
	Volumes    []string `json:"volumes"`
}

// Cleanup removes, through the Engine API, the containers, networks and
// volumes of a run: those labelled sweep.run=<runID> or belonging to the
// compose project sweep<runID>. It is for `sweep clean` and for recovery
// after a crash; Stack.Down calls it too. Objects already gone are no
// error; paused containers are unpaused first (see thaw). Like Down, give
// it a context that outlives cancellation.
func Cleanup(ctx context.Context, eng engine.Engine, runID string) (Cleaned, error) {
	project := sweep.ProjectName(runID)
	if project == "sweep" {
		return Cleaned{}, sweep.BadInput("run_id", "%q has no letter or digit", runID)
	}
	selectors := []filters.Args{
		engine.LabelFilter(sweep.LabelRun + "=" + runID),
		engine.LabelFilter(projectLabel + "=" + project),
	}
	var out Cleaned
	var errs []error
	for _, f := range selectors {
		errs = append(errs, thaw(ctx, eng, container.ListOptions{Filters: f}))
	}
	containers, err := listContainers(ctx, eng, selectors)
	errs = append(errs, err)
	for _, c := range containers {
		err := eng.ContainerRemove(ctx, c.id, container.RemoveOptions{Force: true, RemoveVolumes: true})
		out.Containers, errs = record(out.Containers, errs, c.name, err)
	}
	networks, err := listNetworks(ctx, eng, selectors)
	errs = append(errs, err)
	for _, n := range networks {
		out.Networks, errs = record(out.Networks, errs, n.name, eng.NetworkRemove(ctx, n.id))
	}
	volumes, err := listVolumes(ctx, eng, selectors)
	errs = append(errs, err)
	for _, v := range volumes {
		out.Volumes, errs = record(out.Volumes, errs, v.name, eng.VolumeRemove(ctx, v.id, true))
	}
	if err := errors.Join(errs...); err != nil {
		return out, fmt.Errorf("clean run %s: %w", runID, err)
	}
	return out, nil
}

// record notes a removal, or its error unless the object was already gone.
func record(done []string, errs []error, name string, err error) ([]string, []error) {
	switch {
	case err == nil:
		return append(done, name), errs
	case cerrdefs.IsNotFound(err):
		return done, errs
	}
	return done, append(errs, fmt.Errorf("remove %s: %w", name, err))
}

// object is something to remove: its id and a name to report.
type object struct{ id, name string }

// collect lists objects once per selector and drops duplicates.
func collect[T any](sel []filters.Args, list func(filters.Args) ([]T, error), obj func(T) object) ([]object, error) {
	seen := map[string]bool{}
	var out []object
	for _, f := range sel {
		items, err := list(f)
		if err != nil {
			return out, err
		}
		for _, it := range items {
			if o := obj(it); !seen[o.id] {
				seen[o.id] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
}

func listContainers(ctx context.Context, eng engine.Engine, sel []filters.Args) ([]object, error) {
	return collect(sel, func(f filters.Args) ([]container.Summary, error) {
		return eng.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	}, func(c container.Summary) object { return object{c.ID, containerName(c)} })
}

// containerName is c's name, or its short id when it has none.
func containerName(c container.Summary) string {
	if len(c.Names) > 0 {
		return strings.TrimPrefix(c.Names[0], "/")
	}
	return c.ID[:min(12, len(c.ID))]
}

func listNetworks(ctx context.Context, eng engine.Engine, sel []filters.Args) ([]object, error) {
	return collect(sel, func(f filters.Args) ([]network.Summary, error) {
		return eng.NetworkList(ctx, network.ListOptions{Filters: f})
	}, func(n network.Summary) object { return object{n.ID, n.Name} })
}

func listVolumes(ctx context.Context, eng engine.Engine, sel []filters.Args) ([]object, error) {
	return collect(sel, func(f filters.Args) ([]*volume.Volume, error) {
		resp, err := eng.VolumeList(ctx, volume.ListOptions{Filters: f})
		return resp.Volumes, err
	}, func(v *volume.Volume) object { return object{v.Name, v.Name} })
}
