package compose

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
)

// Engine is the part of the Docker Engine API that the stack and the
// callers of Stack.Engine use: this package's calls, and the container
// stats the samplers read (metrics.Engine, which the consumer owns, is a
// subset, so an Engine is one without a type assertion). *client.Client
// satisfies it; tests use small fakes.
type Engine interface {
	Ping(ctx context.Context) (types.Ping, error)
	Info(ctx context.Context) (system.Info, error)
	ContainerList(ctx context.Context, options container.ListOptions) ([]container.Summary, error)
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerLogs(ctx context.Context, id string, options container.LogsOptions) (io.ReadCloser, error)
	ContainerRemove(ctx context.Context, id string, options container.RemoveOptions) error
	NetworkList(ctx context.Context, options network.ListOptions) ([]network.Summary, error)
	NetworkRemove(ctx context.Context, id string) error
	VolumeList(ctx context.Context, options volume.ListOptions) (volume.ListResponse, error)
	VolumeRemove(ctx context.Context, id string, force bool) error
	ImageInspect(ctx context.Context, ref string, opts ...client.ImageInspectOption) (image.InspectResponse, error)
	Events(ctx context.Context, options events.ListOptions) (<-chan events.Message, <-chan error)
	ContainerStats(ctx context.Context, id string, stream bool) (container.StatsResponseReader, error)
	ContainerStatsOneShot(ctx context.Context, id string) (container.StatsResponseReader, error)
}

// The real client is an Engine: a method missing from it fails the build.
var _ Engine = (*client.Client)(nil)

// The labels compose puts on what it creates.
const (
	projectLabel = "com.docker.compose.project"
	serviceLabel = "com.docker.compose.service"
	oneoffLabel  = "com.docker.compose.oneoff"
)

// NewEngine connects to the Docker Engine named by the environment
// (DOCKER_HOST, DOCKER_CERT_PATH, ...) and checks that it answers. The
// caller closes the client. An engine that does not answer gives an error
// wrapping ErrEngine.
func NewEngine(ctx context.Context) (*client.Client, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("%w: %v (check DOCKER_HOST)", ErrEngine, err)
	}
	if err := ping(ctx, cli); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return cli, nil
}

// ping checks that eng answers within a few seconds.
func ping(ctx context.Context, eng Engine) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := eng.Ping(ctx); err != nil {
		host := os.Getenv("DOCKER_HOST")
		if host == "" {
			host = "unset, so the local socket"
		}
		return fmt.Errorf("%w: %v (DOCKER_HOST is %s; start dockerd or point DOCKER_HOST at a running engine)",
			ErrEngine, err, host)
	}
	return nil
}

// labelFilter selects objects carrying every key=value label given.
func labelFilter(kv ...string) filters.Args {
	args := filters.NewArgs()
	for _, l := range kv {
		args.Add("label", l)
	}
	return args
}
