package swarm

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/api/types/system"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/sweep-tool/sweep/sweep"
)

// fakeManager is a swarm manager that serves the tasks a test sets, by
// service id; the calls that change the swarm are not used by the tests
// that take it.
type fakeManager struct {
	mu    sync.Mutex
	tasks map[string][]swarm.Task
	logs  string
}

func (f *fakeManager) set(service string, tasks ...swarm.Task) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tasks[service] = tasks
}

func (f *fakeManager) TaskList(_ context.Context, opts swarm.TaskListOptions) ([]swarm.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []swarm.Task
	for _, id := range opts.Filters.Get("service") {
		out = append(out, f.tasks[id]...)
	}
	return out, nil
}

func (f *fakeManager) TaskLogs(context.Context, string, container.LogsOptions) (io.ReadCloser, error) {
	var b strings.Builder
	w := stdcopy.NewStdWriter(&b, stdcopy.Stderr)
	_, _ = w.Write([]byte(f.logs))
	return io.NopCloser(strings.NewReader(b.String())), nil
}

func (f *fakeManager) NodeList(context.Context, swarm.NodeListOptions) ([]swarm.Node, error) {
	return []swarm.Node{{ID: "n1", Description: swarm.NodeDescription{Hostname: "host1"}}}, nil
}

func (f *fakeManager) Info(context.Context) (system.Info, error) { return system.Info{}, nil }

var errUnused = errors.New("not used by this test")

func (f *fakeManager) Ping(context.Context) (types.Ping, error) { return types.Ping{}, errUnused }
func (f *fakeManager) ServiceCreate(context.Context, swarm.ServiceSpec, swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error) {
	return swarm.ServiceCreateResponse{}, errUnused
}
func (f *fakeManager) ServiceInspectWithRaw(context.Context, string, swarm.ServiceInspectOptions) (swarm.Service, []byte, error) {
	return swarm.Service{}, nil, errUnused
}
func (f *fakeManager) ServiceUpdate(context.Context, string, swarm.Version, swarm.ServiceSpec, swarm.ServiceUpdateOptions) (swarm.ServiceUpdateResponse, error) {
	return swarm.ServiceUpdateResponse{}, errUnused
}
func (f *fakeManager) ServiceList(context.Context, swarm.ServiceListOptions) ([]swarm.Service, error) {
	return nil, errUnused
}
func (f *fakeManager) ServiceRemove(context.Context, string) error { return errUnused }
func (f *fakeManager) NetworkCreate(context.Context, string, network.CreateOptions) (network.CreateResponse, error) {
	return network.CreateResponse{}, errUnused
}
func (f *fakeManager) NetworkList(context.Context, network.ListOptions) ([]network.Summary, error) {
	return nil, errUnused
}
func (f *fakeManager) NetworkRemove(context.Context, string) error { return errUnused }

// fakeStack is a stack of services app (the target) and db on f, created.
func fakeStack(f *fakeManager) *Stack {
	one := uint64(1)
	rep := swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &one}}
	return &Stack{opts: Options{StackOptions: sweep.StackOptions{Service: "app", SweptEnv: []string{"W"}}}, mgr: f, project: "sweept",
		ids:   map[string]string{"app": "sapp", "db": "sdb"},
		specs: map[string]swarm.ServiceSpec{"app": {Mode: rep}, "db": {Mode: rep}}, nodes: newNodes(f)}
}
