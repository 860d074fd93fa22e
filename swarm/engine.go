package swarm

import (
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// Manager is the part of a swarm manager's Engine API the stack uses:
// services, their tasks and logs, nodes, and the overlay network.
// *client.Client satisfies it; unit tests use small fakes.
type Manager interface {
	Ping(ctx context.Context) (types.Ping, error)
	Info(ctx context.Context) (system.Info, error)
	ServiceCreate(ctx context.Context, spec swarm.ServiceSpec, opts swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error)
	ServiceInspectWithRaw(ctx context.Context, id string, opts swarm.ServiceInspectOptions) (swarm.Service, []byte, error)
	ServiceUpdate(ctx context.Context, id string, version swarm.Version, spec swarm.ServiceSpec, opts swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error)
	ServiceList(ctx context.Context, opts swarm.ServiceListOptions) ([]swarm.Service, error)
	ServiceRemove(ctx context.Context, id string) error
	TaskList(ctx context.Context, opts swarm.TaskListOptions) ([]swarm.Task, error)
	TaskLogs(ctx context.Context, id string, opts container.LogsOptions) (io.ReadCloser, error)
	NodeList(ctx context.Context, opts swarm.NodeListOptions) ([]swarm.Node, error)
	NetworkCreate(ctx context.Context, name string, opts network.CreateOptions) (network.CreateResponse, error)
	NetworkList(ctx context.Context, opts network.ListOptions) ([]network.Summary, error)
	NetworkRemove(ctx context.Context, id string) error
}

// The real client is a Manager: a method missing from it fails the build.
var _ Manager = (*client.Client)(nil)

// EngineLabel is the node label that names a node's own Docker host
// (unix:///..., tcp://...): where set, the stack reads the applied
// configuration back from the task's container, samples its resources and
// watches it there; where not, from the task alone, and the record says so.
const EngineLabel = "sweep.engine"

// Connect returns a client for the manager env names (DOCKER_HOST, ...)
// and checks that it is an active swarm manager. An engine that does not
// answer gives an error wrapping engine.ErrEngine; one that is no manager,
// ErrNotSwarm.
func Connect(ctx context.Context, env sweep.Env) (*client.Client, error) {
	cli, err := engine.Connect(ctx, env)
	if err != nil {
		return nil, err
	}
	if err := checkManager(ctx, cli); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return cli, nil
}

// checkManager fails unless mgr is a manager of an active swarm.
func checkManager(ctx context.Context, mgr Manager) error {
	info, err := mgr.Info(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", engine.ErrEngine, err)
	}
	if info.Swarm.LocalNodeState != swarm.LocalNodeStateActive || !info.Swarm.ControlAvailable {
		return fmt.Errorf("%w: the engine's swarm state is %q, manager %v (docker swarm init makes one)",
			ErrNotSwarm, info.Swarm.LocalNodeState, info.Swarm.ControlAvailable)
	}
	return nil
}

// nodeEngine connects to the engine at host (a node's EngineLabel).
func nodeEngine(ctx context.Context, host string) (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.WithHost(host), client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, err
	}
	if _, err := cli.Ping(ctx); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return cli, nil
}

// ManagerAt returns a client for the swarm manager at host (unix:///...,
// tcp://...) and checks that it is an active manager.
func ManagerAt(ctx context.Context, host string) (*client.Client, error) {
	cli, err := nodeEngine(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", engine.ErrEngine, err)
	}
	if err := checkManager(ctx, cli); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return cli, nil
}

// IsManager reports whether mgr answers as a manager of an active swarm.
func IsManager(ctx context.Context, mgr Manager) bool { return checkManager(ctx, mgr) == nil }
