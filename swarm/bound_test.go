package swarm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/system"

	"github.com/sweep-tool/sweep/internal/boundtest"
	"github.com/sweep-tool/sweep/sweep"
)

// platform is a fake swarm manager of one node that runs what it is
// told: a service created or updated gets a new task, running at once
// with the service's spec, and an update shuts the old one down. Wedged,
// every call accepts and never answers before its context ends; the
// call named in wedgeAt does so only at that number.
type platform struct {
	wedged  atomic.Bool
	wedgeAt map[string]int

	mu       sync.Mutex
	calls    map[string]int
	services map[string]swarm.Service
	tasks    map[string][]swarm.Task
}

func newPlatform(wedgeAt map[string]int) *platform {
	return &platform{wedgeAt: wedgeAt, calls: map[string]int{}, services: map[string]swarm.Service{}, tasks: map[string][]swarm.Task{}}
}

// stuck counts call and blocks until ctx ends when the platform is
// wedged there.
func (p *platform) stuck(ctx context.Context, call string) error {
	p.mu.Lock()
	p.calls[call]++
	n := p.calls[call]
	p.mu.Unlock()
	if !p.wedged.Load() && p.wedgeAt[call] != n {
		return nil
	}
	<-ctx.Done()
	return ctx.Err()
}

func (p *platform) Ping(ctx context.Context) (types.Ping, error) {
	return types.Ping{}, p.stuck(ctx, "ping")
}
func (p *platform) Info(ctx context.Context) (system.Info, error) {
	return system.Info{NCPU: 8, ServerVersion: "28.0.0", Swarm: swarm.Info{NodeID: "n1",
		LocalNodeState: swarm.LocalNodeStateActive, ControlAvailable: true}}, p.stuck(ctx, "info")
}
func (p *platform) NodeList(ctx context.Context, _ swarm.NodeListOptions) ([]swarm.Node, error) {
	return []swarm.Node{{ID: "n1", Description: swarm.NodeDescription{Hostname: "host1",
		Resources: swarm.Resources{NanoCPUs: 8e9}}}}, p.stuck(ctx, "node list")
}
func (p *platform) NetworkCreate(ctx context.Context, name string, _ network.CreateOptions) (network.CreateResponse, error) {
	return network.CreateResponse{ID: "net-" + name}, p.stuck(ctx, "network create")
}
func (p *platform) NetworkList(ctx context.Context, _ network.ListOptions) ([]network.Summary, error) {
	return nil, p.stuck(ctx, "network list")
}
func (p *platform) NetworkRemove(ctx context.Context, _ string) error {
	return p.stuck(ctx, "network remove")
}
func (p *platform) ServiceList(ctx context.Context, _ swarm.ServiceListOptions) ([]swarm.Service, error) {
	return nil, p.stuck(ctx, "service list")
}
func (p *platform) ServiceRemove(ctx context.Context, _ string) error {
	return p.stuck(ctx, "service remove")
}

func (p *platform) ServiceCreate(ctx context.Context, spec swarm.ServiceSpec, _ swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error) {
	if err := p.stuck(ctx, "service create"); err != nil {
		return swarm.ServiceCreateResponse{}, err
	}
	id := "id-" + spec.Name
	p.run(id, spec, 1)
	return swarm.ServiceCreateResponse{ID: id}, nil
}

func (p *platform) ServiceInspectWithRaw(ctx context.Context, id string, _ swarm.ServiceInspectOptions) (swarm.Service, []byte, error) {
	if err := p.stuck(ctx, "service inspect"); err != nil {
		return swarm.Service{}, nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.services[id], nil, nil
}

func (p *platform) ServiceUpdate(ctx context.Context, id string, v swarm.Version, spec swarm.ServiceSpec, _ swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error) {
	if err := p.stuck(ctx, "service update"); err != nil {
		return swarm.ServiceUpdateResponse{}, err
	}
	p.mu.Lock()
	for i := range p.tasks[id] {
		t := &p.tasks[id][i]
		t.DesiredState, t.Status.State = swarm.TaskStateShutdown, swarm.TaskStateShutdown
	}
	p.mu.Unlock()
	p.run(id, spec, v.Index+1)
	return swarm.ServiceUpdateResponse{}, nil
}

// run keeps service id at spec and starts its next task, running.
func (p *platform) run(id string, spec swarm.ServiceSpec, version uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.services[id] = swarm.Service{ID: id, Spec: spec, Meta: swarm.Meta{Version: swarm.Version{Index: version}}}
	n := len(p.tasks[id]) + 1
	at := time.Unix(int64(n), 0)
	p.tasks[id] = append(p.tasks[id], swarm.Task{ID: fmt.Sprintf("%s-t%d", id, n), ServiceID: id, NodeID: "n1",
		Meta: swarm.Meta{CreatedAt: at}, Spec: spec.TaskTemplate, DesiredState: swarm.TaskStateRunning,
		Status: swarm.TaskStatus{State: swarm.TaskStateRunning, Timestamp: at,
			ContainerStatus: &swarm.ContainerStatus{ContainerID: fmt.Sprintf("c-%s-%d", id, n)}}})
}

func (p *platform) TaskList(ctx context.Context, o swarm.TaskListOptions) ([]swarm.Task, error) {
	if err := p.stuck(ctx, "task list"); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []swarm.Task
	for _, id := range o.Filters.Get("service") {
		out = append(out, p.tasks[id]...)
	}
	return out, nil
}

func (p *platform) TaskLogs(ctx context.Context, _ string, _ container.LogsOptions) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader("")), p.stuck(ctx, "task logs")
}

// newStack is a swarm stack of app (the target, ready at url) and db
// over p.
func newStack(t *testing.T, p *platform, url string) *Stack {
	t.Helper()
	file := filepath.Join(t.TempDir(), "docker-compose.yml")
	if err := os.WriteFile(file, []byte("services:\n  app:\n    image: app\n  db:\n    image: db\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "app",
		RunID: "bound", ReadyURL: url + "/health", SweptEnv: []string{"W", "P", "N"}}, Manager: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStackCallsEndWithTheirContext: whichever call of a swarm stack
// meets a manager that accepts it and never answers, the call returns
// soon after its context ends, with an error naming what it was doing.
func TestStackCallsEndWithTheirContext(t *testing.T) {
	t.Parallel()
	target := boundtest.Target(t)
	cfg := sweep.TargetConfig{CPUs: 1, Env: map[string]string{"W": "1", "P": "2", "N": "c"}}
	for _, tc := range []struct {
		name, want string
		call       func(ctx context.Context, t *testing.T, s *Stack) error
	}{
		{"new", "docker engine unreachable", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := New(ctx, s.opts)
			return err
		}},
		{"start dependencies", "create service sweepbound_db", func(ctx context.Context, _ *testing.T, s *Stack) error {
			return s.StartDeps(ctx, cfg, time.Hour)
		}},
		{"apply", "tasks of app", func(ctx context.Context, _ *testing.T, s *Stack) error { return s.Apply(ctx, cfg) }},
		{"ready wait", "wait for the tasks: context deadline exceeded (last: app: 0 of 1", func(ctx context.Context, _ *testing.T, s *Stack) error {
			return s.WaitReady(ctx, time.Hour)
		}},
		{"read back", "tasks of app", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.ReadBack(ctx)
			return err
		}},
		{"logs", "tasks of app", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Logs(ctx, 10)
			return err
		}},
		{"watch", "look at the stack: tasks of", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Watch(ctx)
			return err
		}},
		{"down", "list services", func(ctx context.Context, _ *testing.T, s *Stack) error { return s.Down(ctx) }},
		{"engine info", "engine info", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Info(ctx)
			return err
		}},
		{"node CPUs", "list nodes", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.NCPU(ctx)
			return err
		}},
		{"containers", "containers of stack sweepbound", func(ctx context.Context, _ *testing.T, s *Stack) error {
			_, err := s.Containers(ctx)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newPlatform(nil)
			s := newStack(t, p, target)
			if err := errors.Join(s.StartDeps(t.Context(), cfg, time.Minute), s.Apply(t.Context(), cfg),
				s.WaitReady(t.Context(), time.Minute)); err != nil {
				t.Fatal(err)
			}
			p.wedged.Store(true)
			boundtest.Call(t, tc.want, func(ctx context.Context) error { return tc.call(ctx, t, s) })
		})
	}
}

// TestWatchStopEndsWithItsContext: a watch whose manager stops answering
// while it polls ends its Stop with Stop's context, its poll under way
// included.
func TestWatchStopEndsWithItsContext(t *testing.T) {
	t.Parallel()
	target := boundtest.Target(t)
	p := newPlatform(nil)
	s := newStack(t, p, target)
	cfg := sweep.TargetConfig{CPUs: 1, Env: map[string]string{"W": "1"}}
	if err := errors.Join(s.Apply(t.Context(), cfg), s.WaitReady(t.Context(), time.Minute)); err != nil {
		t.Fatal(err)
	}
	w, err := s.Watch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	p.wedged.Store(true)
	time.Sleep(2 * watchEvery) // a poll under way, stuck
	boundtest.Call(t, "poll the stack's tasks", func(ctx context.Context) error {
		_, err := w.Stop(ctx)
		return err
	})
}

// TestRunnerOverSwarmBoundsAWedgedApply: the runner over a swarm stack
// whose manager never answers the second cell's service update fails
// that cell within the call timeout and stops at the failure limit, the
// first cell kept; a resume over a manager that answers goes on.
func TestRunnerOverSwarmBoundsAWedgedApply(t *testing.T) {
	t.Parallel()
	target := boundtest.Target(t)
	// every answered call of the first cell and the resume must beat it
	// too: 3 s is many times a loaded host's stalls, boundtest's 200 ms not
	spec := boundtest.Spec(target, 5*time.Second, 3*time.Second)
	dir := t.TempDir()
	// the first cell creates the services, the second updates the target
	boundtest.WedgedApply(t, spec, newStack(t, newPlatform(map[string]int{"service update": 1}), target), dir)
	boundtest.Resume(t, spec, newStack(t, newPlatform(nil), target), dir)
}
