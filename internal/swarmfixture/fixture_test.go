package swarmfixture_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/internal/testenv"
)

// testPort is the host-mode port the test service publishes on its node.
const testPort = 18091

// TestServiceOnNamedNode checks what the fixture promises the swarm
// backend: a service placed by node id, with endpoint mode dnsrr and a
// host-mode port, answers the host at that node's address; its container
// runs on the node's CPUs; a service update of NanoCPUs and env converges
// to one new container with the new values; removing the service removes
// its container from the node.
func TestServiceOnNamedNode(t *testing.T) {
	sw := testenv.Swarm(t)
	node, ok := sw.ByRole("app")
	if !ok {
		node = sw.Nodes[len(sw.Nodes)-1]
	}
	eng := sw.Client(t, node)
	img := testenv.GoImage(t, eng, "sweep-swarmfixture-test", "../../compose/testdata/httpd")
	id := createService(t, sw.Manager, eng, node, img)

	first := waitConverged(t, sw.Manager, eng, id, node, 500_000_000, "WEB_THREADS=1", "")
	if got, want := cpusAllowed(t, first.State.Pid), cpuSet(t, node.CPUs); !slices.Equal(got, want) {
		t.Errorf("container on node %d runs on cpus %v, want the node's %v", node.Index, got, want)
	}

	updateService(t, sw.Manager, id, 750_000_000, "WEB_THREADS=2")
	waitConverged(t, sw.Manager, eng, id, node, 750_000_000, "WEB_THREADS=2", first.ID)
}

// createService creates a one-task httpd service pinned to node and
// removes it when the test ends, waiting until its containers are gone.
func createService(t *testing.T, mgr, eng *client.Client, node swarmfixture.Node, img string) string {
	t.Helper()
	run := fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: "sweep-" + run, Labels: map[string]string{"sweep.run": run}},
		TaskTemplate: swarm.TaskSpec{
			ContainerSpec: &swarm.ContainerSpec{Image: img, Env: []string{"WEB_THREADS=1"}},
			Resources:     &swarm.ResourceRequirements{Limits: &swarm.Limit{NanoCPUs: 500_000_000}},
			Placement:     &swarm.Placement{Constraints: []string{"node.id==" + node.ID}},
		},
		EndpointSpec: &swarm.EndpointSpec{Mode: swarm.ResolutionModeDNSRR, Ports: []swarm.PortConfig{{
			Protocol: swarm.PortConfigProtocolTCP, TargetPort: 8080, PublishedPort: testPort,
			PublishMode: swarm.PortConfigPublishModeHost,
		}}},
	}
	resp, err := mgr.ServiceCreate(t.Context(), spec, swarm.ServiceCreateOptions{})
	if err != nil {
		t.Fatalf("create service: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := mgr.ServiceRemove(ctx, resp.ID); err != nil {
			t.Errorf("remove service %s: %v", resp.ID, err)
			return
		}
		for ctx.Err() == nil {
			if cs, err := serviceContainers(ctx, eng, resp.ID, true); err == nil && len(cs) == 0 {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Errorf("containers of service %s still on node after a minute", resp.ID)
	})
	return resp.ID
}

// updateService sets the service's CPU limit and replaces its env.
func updateService(t *testing.T, mgr *client.Client, id string, nanoCPUs int64, env string) {
	t.Helper()
	svc, _, err := mgr.ServiceInspectWithRaw(t.Context(), id, swarm.ServiceInspectOptions{})
	if err != nil {
		t.Fatalf("inspect service: %v", err)
	}
	spec := svc.Spec
	spec.TaskTemplate.Resources.Limits.NanoCPUs = nanoCPUs
	spec.TaskTemplate.ContainerSpec.Env = []string{env}
	if _, err := mgr.ServiceUpdate(t.Context(), id, svc.Version, spec, swarm.ServiceUpdateOptions{}); err != nil {
		t.Fatalf("update service: %v", err)
	}
}

// waitConverged waits (up to two minutes: the machine is shared) until the
// service has one running task, on node, whose container is not notID,
// has the CPU limit and env asked for, and answers on the node's address.
func waitConverged(t *testing.T, mgr, eng *client.Client, id string, node swarmfixture.Node, nanoCPUs int64, env, notID string) container.InspectResponse {
	t.Helper()
	url := fmt.Sprintf("http://%s:%d/health", node.Addr, testPort)
	deadline := time.Now().Add(2 * time.Minute)
	var why string
	for time.Now().Before(deadline) {
		var c container.InspectResponse
		c, why = converged(t.Context(), mgr, eng, id, node, nanoCPUs, env, notID, url)
		if why == "" {
			return c
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("service %s did not converge on node %d within 2 minutes: %s", id, node.Index, why)
	return container.InspectResponse{}
}

// converged returns the service's container when it is as waitConverged
// wants, or why not.
func converged(ctx context.Context, mgr, eng *client.Client, id string, node swarmfixture.Node, nanoCPUs int64, env, notID, url string) (container.InspectResponse, string) {
	var none container.InspectResponse
	tasks, err := mgr.TaskList(ctx, swarm.TaskListOptions{Filters: filters.NewArgs(
		filters.Arg("service", id), filters.Arg("desired-state", "running"))})
	if err != nil || len(tasks) != 1 || tasks[0].Status.State != swarm.TaskStateRunning {
		return none, fmt.Sprintf("want one running task, have %d (%v)", len(tasks), err)
	}
	if tasks[0].NodeID != node.ID {
		return none, fmt.Sprintf("task on node %s, want %s", tasks[0].NodeID, node.ID)
	}
	cs, err := serviceContainers(ctx, eng, id, false)
	if err != nil || len(cs) != 1 || cs[0].ID == notID {
		return none, fmt.Sprintf("want one new running container on the node, have %d (%v)", len(cs), err)
	}
	c, err := eng.ContainerInspect(ctx, cs[0].ID)
	if err != nil {
		return none, err.Error()
	}
	if c.HostConfig.NanoCPUs != nanoCPUs || !slices.Contains(c.Config.Env, env) {
		return none, fmt.Sprintf("container has NanoCPUs %d and env %q", c.HostConfig.NanoCPUs, c.Config.Env)
	}
	hc := http.Client{Timeout: time.Second}
	resp, err := hc.Get(url)
	if err != nil {
		return none, "GET " + url + ": " + err.Error()
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return none, fmt.Sprintf("GET %s: status %d", url, resp.StatusCode)
	}
	return c, ""
}

// serviceContainers lists the node's containers of service id (with all,
// stopped ones too).
func serviceContainers(ctx context.Context, eng *client.Client, id string, all bool) ([]container.Summary, error) {
	return eng.ContainerList(ctx, container.ListOptions{All: all,
		Filters: filters.NewArgs(filters.Arg("label", "com.docker.swarm.service.id="+id))})
}

// cpusAllowed reads the CPUs process pid may run on (same PID namespace:
// the fixture's nodes are processes of this machine).
func cpusAllowed(t *testing.T, pid int) []int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if list, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return cpuSet(t, strings.TrimSpace(list))
		}
	}
	t.Fatalf("no Cpus_allowed_list for pid %d", pid)
	return nil
}

// cpuSet expands a CPU list such as "0-2,4" into its CPUs.
func cpuSet(t *testing.T, list string) []int {
	t.Helper()
	var cpus []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, _ := strings.Cut(part, "-")
		a, errA := strconv.Atoi(lo)
		b, errB := a, error(nil)
		if hi != "" {
			b, errB = strconv.Atoi(hi)
		}
		if errA != nil || errB != nil {
			t.Fatalf("bad CPU list %q", list)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus
}
