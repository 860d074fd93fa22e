package swarm

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
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

// svcManager is fakeManager that also keeps services: created (an
// ingress port without a published one gets the next of the routing
// mesh's range, as the manager allocates), inspected, listed by label
// and removed with their tasks; it creates networks, lists none, lists
// nodes (a node n1 without an address when none are set) and answers as
// the manager of an active swarm. failCreate, when set, is the
// ServiceCreate call (from 1) that fails.
type svcManager struct {
	*fakeManager
	nodes      []swarm.Node
	services   map[string]swarm.Service
	order      []string // the ids created, in order
	failCreate int
	removed    []string // the names removed, in order
}

func newSvcManager() *svcManager {
	return &svcManager{fakeManager: &fakeManager{tasks: map[string][]swarm.Task{}}, services: map[string]swarm.Service{}}
}

func (m *svcManager) Info(context.Context) (system.Info, error) {
	return system.Info{Swarm: swarm.Info{LocalNodeState: swarm.LocalNodeStateActive, ControlAvailable: true}}, nil
}

func (m *svcManager) NodeList(ctx context.Context, opts swarm.NodeListOptions) ([]swarm.Node, error) {
	if m.nodes == nil {
		return m.fakeManager.NodeList(ctx, opts)
	}
	return m.nodes, nil
}

func (m *svcManager) ServiceCreate(_ context.Context, spec swarm.ServiceSpec, _ swarm.ServiceCreateOptions) (swarm.ServiceCreateResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.order)+1 == m.failCreate {
		m.failCreate = 0
		return swarm.ServiceCreateResponse{}, errors.New("rpc error: code = Unknown desc = no space left")
	}
	id := "s" + strconv.Itoa(len(m.order)+1)
	svc := swarm.Service{ID: id, Spec: spec}
	if spec.EndpointSpec != nil {
		for _, p := range spec.EndpointSpec.Ports {
			if p.PublishMode == swarm.PortConfigPublishModeIngress && p.PublishedPort == 0 {
				p.PublishedPort = uint32(30000 + len(m.order))
			}
			svc.Endpoint.Ports = append(svc.Endpoint.Ports, p)
		}
	}
	m.services[id] = svc
	m.order = append(m.order, id)
	return swarm.ServiceCreateResponse{ID: id}, nil
}

func (m *svcManager) ServiceInspectWithRaw(_ context.Context, id string, _ swarm.ServiceInspectOptions) (swarm.Service, []byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	svc, ok := m.services[id]
	if !ok {
		return svc, nil, cerrdefs.ErrNotFound
	}
	return svc, nil, nil
}

func (m *svcManager) ServiceList(_ context.Context, opts swarm.ServiceListOptions) ([]swarm.Service, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []swarm.Service
	for _, id := range m.order {
		if svc, ok := m.services[id]; ok && opts.Filters.MatchKVList("label", svc.Spec.Labels) {
			out = append(out, svc)
		}
	}
	return out, nil
}

func (m *svcManager) ServiceRemove(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	svc, ok := m.services[id]
	if !ok {
		return cerrdefs.ErrNotFound
	}
	delete(m.services, id)
	delete(m.tasks, id)
	m.removed = append(m.removed, svc.Spec.Name)
	return nil
}

func (m *svcManager) NetworkCreate(context.Context, string, network.CreateOptions) (network.CreateResponse, error) {
	return network.CreateResponse{ID: "net1"}, nil
}

func (m *svcManager) NetworkList(context.Context, network.ListOptions) ([]network.Summary, error) {
	return nil, nil
}

// spec is the spec of the service named name ("" when none is).
func (m *svcManager) spec(name string) swarm.ServiceSpec {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, svc := range m.services {
		if svc.Spec.Name == name {
			return svc.Spec
		}
	}
	return swarm.ServiceSpec{}
}
