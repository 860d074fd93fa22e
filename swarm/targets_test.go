package swarm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/go-connections/nat"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/sweep"
)

// targetsYAML is a stack of a database and an app whose port 8080 the
// URL reaches, published in mode mode, with a second published port.
func targetsYAML(mode string) string {
	return `
services:
  db:
    image: db:1
    deploy: {endpoint_mode: dnsrr}
    ports: [{target: 5432, published: "15432", mode: host}]
  app:
    image: app:1
    cpus: 1
    mem_limit: 256m
    environment: {W: "1", P: "2", KEEP: "yes"}
    depends_on: [db]
    deploy: {placement: {constraints: [node.labels.role==app]}}
    healthcheck: {test: ["CMD", "/app", "check"], interval: 500ms}
    ports:
      - {target: 8080, published: "18080", mode: ` + mode + `}
      - {target: 9090, published: "19090", mode: ` + mode + `}
`
}

// targetsStack is the stack of targetsYAML(mode) on m, its URL at
// http://10.0.0.2:18080, with db up (service sdb, one running task).
func targetsStack(t *testing.T, m *svcManager, mode string) *Stack {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docker-compose.yaml")
	if err := os.WriteFile(path, []byte(targetsYAML(mode)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := New(t.Context(), Options{Manager: m, StackOptions: sweep.StackOptions{Files: []string{path}, Service: "app",
		RunID: "r1", URL: "http://10.0.0.2:18080", ReadyURL: "http://10.0.0.2:18080/health", SweptEnv: []string{"W", "P"},
		Env: sweep.Env(os.Environ())}})
	if err != nil {
		t.Fatal(err)
	}
	s.ids["db"] = "sdb"
	m.set("sdb", runningTask("d1", "n1"))
	return s
}

// targetCfgs are two cells' configurations.
func targetCfgs() []sweep.TargetConfig {
	return []sweep.TargetConfig{
		{CPUs: 0.5, Env: map[string]string{"W": "1", "P": "2"}, Labels: map[string]string{sweep.LabelCell: "cpu_0.5__web_1__db_2"}},
		{CPUs: 0.5, Memory: "128m", Env: map[string]string{"W": "2", "P": "4"}, Labels: map[string]string{sweep.LabelCell: "cpu_0.5__web_2__db_4"}},
	}
}

// startedTargets are targetCfgs' targets started on a host-mode stack.
func startedTargets(t *testing.T) (*svcManager, *Stack, []sweep.Target) {
	t.Helper()
	m := newSvcManager()
	s := targetsStack(t, m, "host")
	targets, err := s.StartTargets(t.Context(), targetCfgs())
	if err != nil {
		t.Fatal(err)
	}
	return m, s, targets
}

// watchBoth starts the watches of the two targets.
func watchBoth(t *testing.T, targets []sweep.Target) (sweep.StackWatch, sweep.StackWatch) {
	t.Helper()
	var ws [2]sweep.StackWatch
	for i := range ws {
		var err error
		if ws[i], err = targets[i].Watch(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return ws[0], ws[1]
}

// waitChanged fails the test unless w sees a change within 5 s.
func waitChanged(t *testing.T, w sweep.StackWatch, what string) {
	t.Helper()
	select {
	case <-w.Changed():
	case <-time.After(5 * time.Second):
		t.Fatalf("%s saw no change in 5 s", what)
	}
}

// serviceName is what swarm takes as a service name.
var serviceName = regexp.MustCompile(`^[a-zA-Z0-9](?:[-_]*[A-Za-z0-9]+)*$`)

// TestStartTargetsHostMode: each cell's target is a service of its own,
// the stack's translated app with the cell's env, CPU limit and memory
// on top, the run's labels, sweep.cell and sweep.target on the service
// and its containers, on the stack's network without the app's alias,
// one replica, pinned to the node the URL names, and only the URL's
// port published, on a port the node picks; WaitReady finds that port
// in the running task, ReadBack reads the task back.
func TestStartTargetsHostMode(t *testing.T) {
	t.Parallel()
	m := newSvcManager()
	m.nodes = []swarm.Node{
		{ID: "n1", Status: swarm.NodeStatus{Addr: "10.0.0.1"}},
		{ID: "n2", Status: swarm.NodeStatus{Addr: "10.0.0.2"}},
	}
	s := targetsStack(t, m, "host")
	cfgs := targetCfgs()
	targets, err := s.StartTargets(t.Context(), cfgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) != 2 || len(m.order) != 2 {
		t.Fatalf("%d targets, %d services created; want 2 and 2", len(targets), len(m.order))
	}
	if s.ids["app"] != "" {
		t.Error("the stack's own target service was created")
	}
	names := map[string]bool{}
	for i, id := range m.order {
		spec, cell := m.services[id].Spec, cfgs[i].Labels[sweep.LabelCell]
		cs, lim := spec.TaskTemplate.ContainerSpec, spec.TaskTemplate.Resources.Limits
		names[spec.Name] = true
		checks := []struct {
			what string
			ok   bool
		}{
			{"name " + spec.Name, serviceName.MatchString(spec.Name) && len(spec.Name) <= maxName && strings.HasPrefix(spec.Name, "sweepr1_app_")},
			{"service labels", spec.Labels[sweep.LabelRun] == "r1" && spec.Labels[NamespaceLabel] == "sweepr1" &&
				spec.Labels[sweep.LabelCell] == cell && spec.Labels[sweep.LabelTarget] == cell},
			{"container labels", cs.Labels[sweep.LabelRun] == "r1" && cs.Labels[sweep.LabelCell] == cell && cs.Labels[sweep.LabelTarget] == cell},
			{"env", slices.Contains(cs.Env, "W="+cfgs[i].Env["W"]) && slices.Contains(cs.Env, "P="+cfgs[i].Env["P"]) && slices.Contains(cs.Env, "KEEP=yes")},
			{"image", cs.Image == "app:1" && cs.Healthcheck != nil},
			{"cpus", lim.NanoCPUs == 500_000_000},
			{"memory", lim.MemoryBytes == map[int]int64{0: 256 << 20, 1: 128 << 20}[i]},
			{"one replica", spec.Mode.Replicated != nil && *spec.Mode.Replicated.Replicas == 1},
			{"network without alias", len(spec.TaskTemplate.Networks) == 1 && spec.TaskTemplate.Networks[0].Target == "sweepr1_default" &&
				len(spec.TaskTemplate.Networks[0].Aliases) == 0},
			{"placement", slices.Equal(spec.TaskTemplate.Placement.Constraints, []string{"node.labels.role==app", "node.id==n2"})},
			{"one port, the node's pick", len(spec.EndpointSpec.Ports) == 1 && spec.EndpointSpec.Ports[0].TargetPort == 8080 &&
				spec.EndpointSpec.Ports[0].PublishedPort == 0 && spec.EndpointSpec.Ports[0].PublishMode == swarm.PortConfigPublishModeHost},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("target %d: %s: %+v", i+1, c.what, spec)
			}
		}
	}
	if len(names) != 2 {
		t.Errorf("names %v, want two", names)
	}
	if app := s.specs["app"]; len(app.TaskTemplate.Networks[0].Aliases) != 1 || len(app.EndpointSpec.Ports) != 2 ||
		len(app.TaskTemplate.Placement.Constraints) != 1 || app.TaskTemplate.ContainerSpec.Labels[sweep.LabelTarget] != "" {
		t.Errorf("the stack's own spec of app changed: %+v", app)
	}
	for i, id := range m.order {
		task := runningTask("t"+id, "n2")
		task.Spec = m.services[id].Spec.TaskTemplate
		task.Status.PortStatus.Ports = []swarm.PortConfig{{Protocol: swarm.PortConfigProtocolTCP, TargetPort: 8080,
			PublishedPort: uint32(32001 + i), PublishMode: swarm.PortConfigPublishModeHost}}
		m.set(id, task)
	}
	for i, tg := range targets {
		if tg.URL() != "" {
			t.Errorf("target %d: URL %q before WaitReady", i+1, tg.URL())
		}
		if err := tg.WaitReady(t.Context(), 5*time.Second); err != nil {
			t.Fatal(err)
		}
		if want := "http://10.0.0.2:" + []string{"32001", "32002"}[i]; tg.URL() != want {
			t.Errorf("target %d: URL %s, want %s", i+1, tg.URL(), want)
		}
		a, err := tg.ReadBack(t.Context())
		if err != nil || a.CPUs != 0.5 || a.Env["W"] != cfgs[i].Env["W"] || a.Env["P"] != cfgs[i].Env["P"] ||
			a.ContainerID != "ct"+m.order[i] || a.Nodes["app"].ID != "n2" || a.Nodes["db"].ID != "n1" {
			t.Errorf("target %d: read back %+v, %v", i+1, a, err)
		}
	}
}

// TestStartTargetsIngress: on the routing mesh the target's port is
// published on a port the manager allocates, the URL's host kept and
// no node pinned.
func TestStartTargetsIngress(t *testing.T) {
	t.Parallel()
	m := newSvcManager()
	m.nodes = []swarm.Node{{ID: "n2", Status: swarm.NodeStatus{Addr: "10.0.0.2"}}}
	s := targetsStack(t, m, "ingress")
	targets, err := s.StartTargets(t.Context(), targetCfgs()[:1])
	if err != nil {
		t.Fatal(err)
	}
	spec := m.services[m.order[0]].Spec
	if p := spec.EndpointSpec.Ports; len(p) != 1 || p[0].PublishMode != swarm.PortConfigPublishModeIngress || p[0].PublishedPort != 0 {
		t.Errorf("ports %+v, want 8080 on the mesh, the manager's pick", p)
	}
	if c := spec.TaskTemplate.Placement.Constraints; !slices.Equal(c, []string{"node.labels.role==app"}) {
		t.Errorf("constraints %v: a routing mesh port is pinned to no node", c)
	}
	m.set(m.order[0], runningTask("t1", "n2"))
	if err := targets[0].WaitReady(t.Context(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if targets[0].URL() != "http://10.0.0.2:30000" {
		t.Errorf("URL %s, want the mesh port on the URL's host", targets[0].URL())
	}
}

// TestStartTargetsRemovesWhatItMadeOnError: a target the manager does
// not create fails the start and removes the targets made before it; a
// URL at a port the target does not publish is bad input of url before
// anything is created.
func TestStartTargetsRemovesWhatItMadeOnError(t *testing.T) {
	t.Parallel()
	m := newSvcManager()
	m.failCreate = 2
	s := targetsStack(t, m, "host")
	targets, err := s.StartTargets(t.Context(), targetCfgs())
	if err == nil || !strings.Contains(err.Error(), "create the target of cpu_0.5__web_2__db_4") || targets != nil {
		t.Fatalf("%d targets, error %v; want the second's create error", len(targets), err)
	}
	if len(m.services) != 0 || len(m.removed) != 1 || len(s.copies) != 0 {
		t.Errorf("left %d services, removed %v, %d known; want the first removed", len(m.services), m.removed, len(s.copies))
	}

	m = newSvcManager()
	s = targetsStack(t, m, "host")
	s.opts.URL = "http://10.0.0.2:8080"
	if _, err := s.StartTargets(t.Context(), targetCfgs()); !errors.Is(err, sweep.ErrBadInput) || !strings.Contains(err.Error(), "port 8080") {
		t.Errorf("a URL at an unpublished port: %v, want bad input of url", err)
	}
	s.opts.URL = "http://10.0.0.2:18080"
	cfgs := targetCfgs()
	cfgs[1].CPUSet = "1"
	if _, err := s.StartTargets(t.Context(), cfgs); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a cpuset: %v, want it unsupported", err)
	}
	if len(m.order) != 0 {
		t.Errorf("%d services created", len(m.order))
	}
}

// TestTargetWatchAndDown: a task of one target that ends is a change of
// that target's watch (the target's, named app), not of the other's; a
// task of the database that ends is a change of both. Down removes the
// target's service alone; the stack's Down removes the rest, targets
// included.
func TestTargetWatchAndDown(t *testing.T) {
	t.Parallel()
	m, s, targets := startedTargets(t)
	for _, id := range m.order {
		m.set(id, runningTask("t"+id, "n1"))
	}
	w1, w2 := watchBoth(t, targets)
	died := runningTask("t"+m.order[0], "n1")
	died.Status.State, died.Status.Err = swarm.TaskStateFailed, "task: non-zero exit (137)"
	m.set(m.order[0], died)
	waitChanged(t, w1, "the killed target's watch")
	time.Sleep(2 * watchEvery)
	ev1, err1 := w1.Stop(t.Context())
	ev2, err2 := w2.Stop(t.Context())
	if err1 != nil || len(ev1) != 1 || ev1[0].Service != "app" || !ev1[0].Target || ev1[0].Action != "die" {
		t.Errorf("the killed target's events %+v (%v), want its task's end", ev1, err1)
	}
	if err2 != nil || len(ev2) != 0 {
		t.Errorf("the other target's events %+v (%v), want none", ev2, err2)
	}

	m.set(m.order[0], runningTask("u"+m.order[0], "n1"))
	w1, w2 = watchBoth(t, targets)
	dbDied := runningTask("d1", "n1")
	dbDied.Status.State = swarm.TaskStateFailed
	m.set("sdb", dbDied)
	for i, w := range []sweep.StackWatch{w1, w2} {
		waitChanged(t, w, fmt.Sprintf("target %d's watch of the database", i+1))
		evs, _ := w.Stop(t.Context())
		if len(evs) == 0 || evs[0].Service != "db" || evs[0].Target {
			t.Errorf("target %d's events %+v, want the database's", i+1, evs)
		}
	}

	first := m.services[m.order[0]].Spec.Name
	if err := targets[0].Down(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.removed, []string{first}) || len(m.services) != 1 || len(s.copies) != 1 {
		t.Errorf("Down of the first target removed %v, left %d services, %d known", m.removed, len(m.services), len(s.copies))
	}
	m.services["sdb"] = swarm.Service{ID: "sdb", Spec: s.specs["db"]}
	m.order = append(m.order, "sdb")
	if err := s.Down(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(m.services) != 0 {
		t.Errorf("the stack's Down left %d services", len(m.services))
	}
}

// TestCleanupFindsTargets: sweep clean's Cleanup of a run and its
// Leftovers see the targets of an interleaved group by the run's label.
func TestCleanupFindsTargets(t *testing.T) {
	t.Parallel()
	m, _, _ := startedTargets(t)
	left, err := Leftovers(t.Context(), m)
	if err != nil || len(left) != 1 || left[0].ID != "r1" || left[0].Containers != 2 {
		t.Errorf("leftovers %+v (%v), want run r1's two targets", left, err)
	}
	out, err := Cleanup(t.Context(), m, "r1")
	if err != nil || len(out.Services) != 2 || len(m.services) != 0 {
		t.Errorf("cleanup removed %v (%v), left %d", out.Services, err, len(m.services))
	}
}

func TestCopyName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 80)
	for cell, want := range map[string]string{
		"c1":                   "sweepr1_app_c1",
		"cpu_0.5__web_1__db_2": "sweepr1_app_cpu_0_5_web_1_db_2_",
		long:                   "sweepr1_app_xxxx",
	} {
		got := copyName("sweepr1", "app", cell)
		if !strings.HasPrefix(got, want) || !serviceName.MatchString(got) || len(got) > maxName {
			t.Errorf("copyName(%q) = %q, want %q... as a service name", cell, got, want)
		}
	}
	if a, b := copyName("sweepr1", "app", "a.b"), copyName("sweepr1", "app", "a-b"); a == b {
		t.Errorf("two cells, one name %s", a)
	}
}

// TestStartTargetsMemory: targets placed on one node whose memory limits
// (the cell's, else the target's 256m) together exceed that node's
// memory are bad input of memory before any is created; where they fit,
// or are not placed on one node, sweep.log says so.
func TestStartTargetsMemory(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, c := range []struct {
		name    string
		addr    string // the URL's node's address
		mem     int64
		refused bool
		logs    string
	}{
		{"over the node's", "10.0.0.2", 300 * mib, true, "more than the 300 MiB of node n2"},
		{"within the node's", "10.0.0.2", 1024 * mib, false, "384 MiB together fit into the 1024 MiB of node n2"},
		{"on no one node", "10.0.0.9", 300 * mib, false, "not checked: the targets are not placed on one node"},
	} {
		m := newSvcManager()
		m.nodes = []swarm.Node{{ID: "n2", Status: swarm.NodeStatus{Addr: c.addr},
			Description: swarm.NodeDescription{Resources: swarm.Resources{MemoryBytes: c.mem}}}}
		s := targetsStack(t, m, "host")
		var log strings.Builder
		s.opts.Log = &log
		_, err := s.StartTargets(t.Context(), targetCfgs())
		if refused := errors.Is(err, sweep.ErrBadInput); refused != c.refused || (!c.refused && err != nil) ||
			!strings.Contains(log.String(), c.logs) || (c.refused && len(m.order) != 0) {
			t.Errorf("%s: %v, %d services created, log %q; want refused %t and %q", c.name, err, len(m.order), log.String(), c.refused, c.logs)
		}
	}
}

// portEngine is a node's engine whose containers publish port 8080 on
// hostPort; only ContainerInspect is used.
type portEngine struct {
	engine.Engine
	hostPort string
}

func (e portEngine) ContainerInspect(context.Context, string) (container.InspectResponse, error) {
	return container.InspectResponse{NetworkSettings: &container.NetworkSettings{NetworkSettingsBase: container.NetworkSettingsBase{
		Ports: nat.PortMap{"8080/tcp": {{HostIP: "0.0.0.0", HostPort: e.hostPort}}}}}}, nil
}

// TestTargetPortFromContainer: a host-mode task that reports no port
// status has its published port read from its container on its node.
func TestTargetPortFromContainer(t *testing.T) {
	t.Parallel()
	m := newSvcManager()
	s := targetsStack(t, m, "host")
	targets, err := s.StartTargets(t.Context(), targetCfgs()[:1])
	if err != nil {
		t.Fatal(err)
	}
	m.set(m.order[0], runningTask("t1", "n1"))
	if err := targets[0].WaitReady(t.Context(), time.Second); err == nil || !strings.Contains(err.Error(), "no port published for 8080/tcp") {
		t.Errorf("no port status, no engine: %v", err)
	}
	if _, err := s.nodes.get(t.Context(), "n1"); err != nil {
		t.Fatal(err)
	}
	s.nodes.byID["n1"].engine = portEngine{hostPort: "32777"}
	if err := targets[0].WaitReady(t.Context(), time.Second); err != nil || targets[0].URL() != "http://10.0.0.2:32777" {
		t.Errorf("URL %q (%v), want the container's published port", targets[0].URL(), err)
	}
}
