// Package engine is the Docker Engine layer that the Docker backends
// (compose, swarm) share: the part of the Engine API they call, the
// connection to an engine named by the environment the front end read,
// and the one error for an engine that does not answer. It knows nothing
// of stacks, cells or compose files; a backend that is not Docker (one on
// Kubernetes) does not import it.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
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
	"github.com/docker/go-connections/tlsconfig"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/sweep-tool/sweep/sweep"
)

// Engine is the part of the Docker Engine API that the backends and the
// samplers use (metrics.Engine, which the consumer owns, is a subset, so
// an Engine is one without a type assertion). *client.Client satisfies
// it; tests use small fakes.
type Engine interface {
	Ping(ctx context.Context) (types.Ping, error)
	Info(ctx context.Context) (system.Info, error)
	ContainerList(ctx context.Context, options container.ListOptions) ([]container.Summary, error)
	ContainerInspect(ctx context.Context, id string) (container.InspectResponse, error)
	ContainerLogs(ctx context.Context, id string, options container.LogsOptions) (io.ReadCloser, error)
	ContainerRemove(ctx context.Context, id string, options container.RemoveOptions) error
	ContainerUnpause(ctx context.Context, id string) error
	// ContainerCreate, ContainerStart and NetworkConnect start the copies
	// of a target an interleaved group runs (compose's StartTargets).
	ContainerCreate(ctx context.Context, config *container.Config, hostConfig *container.HostConfig,
		networkingConfig *network.NetworkingConfig, platform *ocispec.Platform, containerName string) (container.CreateResponse, error)
	ContainerStart(ctx context.Context, id string, options container.StartOptions) error
	NetworkConnect(ctx context.Context, networkID, containerID string, config *network.EndpointSettings) error
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

// ErrEngine means the Docker Engine did not answer (DOCKER_HOST, daemon
// down, permissions).
var ErrEngine = errors.New("docker engine unreachable")

// The variables that name an engine, as the docker CLI reads them.
const (
	envHost      = "DOCKER_HOST"
	envCertPath  = "DOCKER_CERT_PATH"
	envTLSVerify = "DOCKER_TLS_VERIFY"
	envVersion   = "DOCKER_API_VERSION"
)

// Connect connects to the Docker Engine that env names (DOCKER_HOST,
// DOCKER_CERT_PATH, DOCKER_TLS_VERIFY, DOCKER_API_VERSION, as the docker
// CLI reads them; none set: the local socket) and checks that it answers.
// The caller closes the client. An engine that does not answer gives an
// error wrapping ErrEngine.
func Connect(ctx context.Context, env sweep.Env) (*client.Client, error) {
	opts, err := clientOpts(env)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (check %s)", ErrEngine, err, envCertPath)
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (check %s)", ErrEngine, err, envHost)
	}
	if err := Ping(ctx, cli, env); err != nil {
		_ = cli.Close()
		return nil, err
	}
	return cli, nil
}

// clientOpts are the client options env names: what client.FromEnv reads
// from the process environment, read from env instead.
func clientOpts(env sweep.Env) ([]client.Opt, error) {
	opts := []client.Opt{client.WithAPIVersionNegotiation()}
	if dir := env.Get(envCertPath); dir != "" {
		tlsc, err := tlsconfig.Client(tlsconfig.Options{
			CAFile:             filepath.Join(dir, "ca.pem"),
			CertFile:           filepath.Join(dir, "cert.pem"),
			KeyFile:            filepath.Join(dir, "key.pem"),
			InsecureSkipVerify: env.Get(envTLSVerify) == "",
		})
		if err != nil {
			return nil, err
		}
		opts = append(opts, client.WithHTTPClient(&http.Client{
			Transport: &http.Transport{TLSClientConfig: tlsc}, CheckRedirect: client.CheckRedirect}))
	}
	if host := env.Get(envHost); host != "" {
		opts = append(opts, client.WithHost(host))
	}
	if v := env.Get(envVersion); v != "" {
		opts = append(opts, client.WithVersion(v))
	}
	return opts, nil
}

// Ping checks that eng answers within a few seconds; the error names the
// engine env points at.
func Ping(ctx context.Context, eng Engine, env sweep.Env) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := eng.Ping(ctx); err != nil {
		host := env.Get(envHost)
		if host == "" {
			host = "unset, so the local socket"
		}
		return fmt.Errorf("%w: %w (DOCKER_HOST is %s; start dockerd or point DOCKER_HOST at a running engine)",
			ErrEngine, err, host)
	}
	return nil
}

// Local reports whether env's engine runs on this machine (DOCKER_HOST
// unset or a unix socket): only then do the host's facts (/proc/cpuinfo)
// describe the engine's CPUs.
func Local(env sweep.Env) bool {
	host := env.Get(envHost)
	return host == "" || strings.HasPrefix(host, "unix://")
}

// LabelFilter selects objects carrying every key=value label given.
func LabelFilter(kv ...string) filters.Args {
	args := filters.NewArgs()
	for _, l := range kv {
		args.Add("label", l)
	}
	return args
}
