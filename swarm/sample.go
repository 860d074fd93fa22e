package swarm

import (
	"context"
	"fmt"
	"sync"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/engine"
)

// Containers maps each service to the container of its running task
// (the newest one of a service with several) whose node's engine is
// reachable, for the resource samplers; it remembers each container's
// node, so that Engine reaches it there. A service whose node is not
// reachable is left out: its resources go unsampled.
func (s *Stack) Containers(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for svc := range s.ids {
		t, err := s.running(ctx, svc)
		if err != nil || t.Status.ContainerStatus == nil {
			continue
		}
		n, err := s.nodes.get(ctx, t.NodeID)
		if err != nil {
			return nil, err
		}
		if n.engine == nil {
			continue
		}
		id := t.Status.ContainerStatus.ContainerID
		s.route.set(id, n.engine)
		out[svc] = id
	}
	if err := ctx.Err(); err != nil { // a list cut short is no list
		return nil, fmt.Errorf("containers of stack %s: %w", s.project, err)
	}
	return out, nil
}

// Engine serves the samplers' container calls (stats, inspect) from the
// engine of the node each container runs on, as Containers found it.
func (s *Stack) Engine() *Router { return &s.route }

// Router sends container calls to the engine of the node the container
// runs on. It satisfies metrics.Engine.
type Router struct {
	mu   sync.Mutex
	byID map[string]engine.Engine
}

func (r *Router) set(id string, eng engine.Engine) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byID == nil {
		r.byID = map[string]engine.Engine{}
	}
	r.byID[id] = eng
}

func (r *Router) get(id string) (engine.Engine, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if eng, ok := r.byID[id]; ok {
		return eng, nil
	}
	return nil, fmt.Errorf("container %s: its node is not known (list the containers first)", short(id))
}

// ContainerStats streams or reads the stats of container id on its node.
func (r *Router) ContainerStats(ctx context.Context, id string, stream bool) (container.StatsResponseReader, error) {
	eng, err := r.get(id)
	if err != nil {
		return container.StatsResponseReader{}, err
	}
	return eng.ContainerStats(ctx, id, stream)
}

// ContainerStatsOneShot reads container id's stats once, on its node.
func (r *Router) ContainerStatsOneShot(ctx context.Context, id string) (container.StatsResponseReader, error) {
	eng, err := r.get(id)
	if err != nil {
		return container.StatsResponseReader{}, err
	}
	return eng.ContainerStatsOneShot(ctx, id)
}

// ContainerInspect inspects container id on its node.
func (r *Router) ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error) {
	eng, err := r.get(id)
	if err != nil {
		return container.InspectResponse{}, err
	}
	return eng.ContainerInspect(ctx, id)
}
