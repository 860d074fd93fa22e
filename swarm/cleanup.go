package swarm

import (
	"context"
	"errors"
	"fmt"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/volume"

	"github.com/sweep-tool/sweep/sweep"
)

// Cleaned lists what Cleanup removed from the swarm, by name.
type Cleaned struct {
	Services []string `json:"services"`
	Networks []string `json:"networks"`
	// Volumes are the named volumes removed from the nodes (a service's
	// volumes: entry, a k6 load's install volume), as node: name.
	Volumes []string `json:"volumes,omitempty"`
}

// Down removes the stack's services, network and volumes (those of its
// stack name, as Cleanup does for a whole run). Pass a
// context that outlives cancellation, e.g. context.WithoutCancel(ctx)
// with a timeout of a minute.
func (s *Stack) Down(ctx context.Context) error {
	_, err := removeBy(ctx, s.mgr, s.nodes, []filters.Args{filters.NewArgs(filters.Arg("label", NamespaceLabel+"="+s.project))})
	if err != nil {
		err = fmt.Errorf("remove stack %s: %w", s.project, err)
	}
	s.ids, s.network = map[string]string{}, ""
	s.setPending(nil)
	s.mu.Lock()
	s.copies = nil
	s.mu.Unlock()
	return err
}

// Cleanup removes from the swarm, through its manager, the services of a
// run (label sweep.run=<runID>, or stack sweep<runID>: every stack of the
// run and its one-shot load services), waits until their tasks are gone
// from every node, then removes the run's networks, and its volumes on
// every node whose engine it reaches. It is for Ctrl-C and
// `sweep clean`; what is already gone is no error.
func Cleanup(ctx context.Context, mgr Manager, runID string) (Cleaned, error) {
	project := sweep.ProjectName(runID)
	if project == "sweep" {
		return Cleaned{}, sweep.BadInput("run_id", "%q has no letter or digit", runID)
	}
	out, err := removeBy(ctx, mgr, newNodes(mgr), []filters.Args{
		filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+runID)),
		filters.NewArgs(filters.Arg("label", NamespaceLabel+"="+project)),
	})
	if err != nil {
		return out, fmt.Errorf("clean run %s: %w", runID, err)
	}
	return out, nil
}

// removeBy removes the services the selectors find, waits until their
// tasks are gone from the manager and the containers the selectors find
// are gone from every node whose engine ns reaches, then removes the
// networks they find.
func removeBy(ctx context.Context, mgr Manager, ns *nodes, selectors []filters.Args) (Cleaned, error) {
	var out Cleaned
	var errs []error
	removed := map[string]bool{}
	for _, f := range selectors {
		list, err := mgr.ServiceList(ctx, swarm.ServiceListOptions{Filters: f})
		if err != nil {
			errs = append(errs, fmt.Errorf("list services: %w", err))
			continue
		}
		for _, svc := range list {
			if removed[svc.ID] {
				continue
			}
			removed[svc.ID] = true
			switch err := mgr.ServiceRemove(ctx, svc.ID); {
			case err == nil:
				out.Services = append(out.Services, svc.Spec.Name)
			case !cerrdefs.IsNotFound(err):
				errs = append(errs, fmt.Errorf("remove service %s: %w", svc.Spec.Name, err))
			}
		}
	}
	errs = append(errs, tasksGone(ctx, mgr, removed), containersGone(ctx, mgr, ns, selectors))
	out.Networks, errs = removeNetworks(ctx, mgr, selectors, errs)
	out.Volumes, errs = removeVolumes(ctx, mgr, ns, selectors, errs)
	return out, errors.Join(errs...)
}

// removeVolumes removes the named volumes the selectors find on every
// node whose engine ns reaches (a volume is the node's own; swarm made
// it there when a task mounted it), once their containers are gone. A
// node whose engine is out of reach keeps its volumes.
func removeVolumes(ctx context.Context, mgr Manager, ns *nodes, selectors []filters.Args, errs []error) ([]string, []error) {
	list, err := mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return nil, append(errs, fmt.Errorf("list nodes: %w", err))
	}
	var out []string
	for _, sn := range list {
		n, err := ns.get(ctx, sn.ID)
		if err != nil || n.engine == nil {
			continue
		}
		seen := map[string]bool{}
		for _, f := range selectors {
			resp, err := n.engine.VolumeList(ctx, volume.ListOptions{Filters: f})
			if err != nil {
				errs = append(errs, fmt.Errorf("volumes on node %s: %w", sn.ID, err))
				continue
			}
			for _, v := range resp.Volumes {
				if seen[v.Name] {
					continue
				}
				seen[v.Name] = true
				switch err := n.engine.VolumeRemove(ctx, v.Name, false); {
				case err == nil:
					out = append(out, sn.ID+": "+v.Name)
				case !cerrdefs.IsNotFound(err):
					errs = append(errs, fmt.Errorf("remove volume %s on node %s: %w", v.Name, sn.ID, err))
				}
			}
		}
	}
	return out, errs
}

// tasksGone waits until no task of the removed services is left: their
// containers hold the network until then.
func tasksGone(ctx context.Context, mgr Manager, services map[string]bool) error {
	for id := range services {
		for {
			tasks, err := mgr.TaskList(ctx, swarm.TaskListOptions{Filters: filters.NewArgs(filters.Arg("service", id))})
			if err != nil && !cerrdefs.IsNotFound(err) {
				return fmt.Errorf("tasks of removed service %s: %w", short(id), err)
			}
			if len(tasks) == 0 {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("tasks of removed service %s still there: %w", short(id), ctx.Err())
			case <-time.After(pollEvery):
			}
		}
	}
	return nil
}

// containersGone waits until no container the selectors find (any state)
// is left on the nodes whose engine ns reaches: the manager forgets a
// removed service's tasks before the nodes' agents have stopped and
// removed their containers. A node whose engine is out of reach is not
// waited for.
func containersGone(ctx context.Context, mgr Manager, ns *nodes, selectors []filters.Args) error {
	list, err := mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return fmt.Errorf("list nodes: %w", err)
	}
	for _, sn := range list {
		n, err := ns.get(ctx, sn.ID)
		if err != nil || n.engine == nil {
			continue
		}
		for _, f := range selectors {
			for {
				left, err := n.engine.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
				if err != nil {
					return fmt.Errorf("containers on node %s: %w", sn.ID, err)
				}
				if len(left) == 0 {
					break
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("%d container(s) still on node %s: %w", len(left), sn.ID, ctx.Err())
				case <-time.After(pollEvery):
				}
			}
		}
	}
	return nil
}

// removeNetworks removes the networks the selectors find, retrying a
// network still in use for a few seconds (a node's endpoints go a
// moment after the tasks).
func removeNetworks(ctx context.Context, mgr Manager, selectors []filters.Args, errs []error) ([]string, []error) {
	var out []string
	seen := map[string]bool{}
	for _, f := range selectors {
		list, err := mgr.NetworkList(ctx, network.ListOptions{Filters: f})
		if err != nil {
			errs = append(errs, fmt.Errorf("list networks: %w", err))
			continue
		}
		for _, n := range list {
			if seen[n.ID] {
				continue
			}
			seen[n.ID] = true
			err := removeNetwork(ctx, mgr, n.ID)
			switch {
			case err == nil:
				out = append(out, n.Name)
			case !cerrdefs.IsNotFound(err):
				errs = append(errs, fmt.Errorf("remove network %s: %w", n.Name, err))
			}
		}
	}
	return out, errs
}

// removeNetwork removes network id, trying again every pollEvery for a
// few seconds while it is still in use.
func removeNetwork(ctx context.Context, mgr Manager, id string) error {
	err := mgr.NetworkRemove(ctx, id)
	for try := 0; err != nil && !cerrdefs.IsNotFound(err) && try < 50; try++ {
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pollEvery):
		}
		err = mgr.NetworkRemove(ctx, id)
	}
	return err
}
