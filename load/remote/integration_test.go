package remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/swarm"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/swarmfixture"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/load/builtin"
	"github.com/sweep-tool/sweep/load/scenario"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// Ports the test's demo stack publishes in host mode on its nodes, apart
// from the demo's own (15432, 18080) so a sweep on the fixture is no
// obstacle.
const (
	testDBPort  = 25432
	testAppPort = 28080
)

// onSwarm is what the integration tests share: the fixture, the load node,
// the drive image on it, and the run label of what the test creates.
type onSwarm struct {
	sw    *testenv.SwarmFixture
	load  swarmfixture.Node
	image string
	run   string
}

func setUp(t *testing.T) *onSwarm {
	t.Helper()
	sw := testenv.Swarm(t)
	main := testenv.Docker(t)
	s := &onSwarm{sw: sw, load: sw.Node(t, "load"), run: fmt.Sprintf("test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	s.image = testenv.GoImage(t, main, "sweep-drive-test", "../../cmd/sweep")
	sw.LoadImage(t, main, s.image, s.load)
	return s
}

func (s *onSwarm) driver(t *testing.T, opts Options) *Driver {
	t.Helper()
	opts.Image = s.image
	opts.Constraints = []string{"node.id==" + s.load.ID}
	opts.Labels = map[string]string{sweep.LabelRun: s.run}
	d, err := New(s.sw.Manager, opts)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRemoteLoadDrivesTheDemoAppOnAnotherNode: the built-in driver runs on
// the load node against the demo app on the app node (its database on the
// db node) and returns a valid record naming the load's node; the same
// load from this process is measured beside it for comparison.
func TestRemoteLoadDrivesTheDemoAppOnAnotherNode(t *testing.T) {
	s := setUp(t)
	url := startDemo(t, s)
	var ivs []results.Interval
	req := sweep.LoadRequest{BaseURL: url, Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 4},
		Duration: 3 * time.Second, Interval: func(iv results.Interval) { ivs = append(ivs, iv) }}
	start := time.Now()
	m, err := s.driver(t, Options{}).Run(t.Context(), req)
	if err != nil {
		t.Fatalf("remote Run: %v", err)
	}
	t.Logf("remote: %d requests, %.1f RPS, p99 %.1f ms, errors %.2f%%, on node %+v; phase %.1fs of %.1fs wall",
		m.Requests, m.RPS, m.LatencyMS.P99, 100*m.ErrorRate, m.LoadNode, m.DurationS, time.Since(start).Seconds())
	if m.Requests == 0 || m.ErrorRate > 0.01 || m.Ops["create"].Requests == 0 {
		t.Errorf("measurement %+v: want requests, nearly all answered", m)
	}
	if m.LoadNode == nil || m.LoadNode.ID != s.load.ID || m.LoadNode.Hostname == "" {
		t.Errorf("load node %+v, want %s with its hostname", m.LoadNode, s.load.ID)
	}
	if len(ivs) < 2 {
		t.Errorf("%d intervals came back for a 3 s phase", len(ivs))
	}
	assertNoLoadService(t, s)

	stopped := stopEarly(t, s, url)
	usersScenario(t, s, url)

	local, err := builtin.New(builtin.Options{}).Run(t.Context(), sweep.LoadRequest{BaseURL: url, Load: req.Load, Duration: req.Duration})
	if err != nil {
		t.Fatalf("local Run: %v", err)
	}
	t.Logf("in-process: %d requests, %.1f RPS, p99 %.1f ms; remote/in-process RPS %.2f (stopped remote phase: %.1f RPS)",
		local.Requests, local.RPS, local.LatencyMS.P99, m.RPS/local.RPS, stopped.RPS)
}

// stopEarly runs a one-minute remote phase against url and closes its
// Stop two intervals in: the far end must end the phase as a normal stop
// and its record still come back.
func stopEarly(t *testing.T, s *onSwarm, url string) results.Measurement {
	t.Helper()
	stop := make(chan struct{})
	n := 0
	req := sweep.LoadRequest{BaseURL: url, Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 4},
		Duration: time.Minute, Stop: stop, Interval: func(results.Interval) {
			if n++; n == 2 {
				close(stop)
			}
		}}
	start := time.Now()
	m, err := s.driver(t, Options{}).Run(t.Context(), req)
	if err != nil {
		t.Fatalf("remote Run with Stop: %v", err)
	}
	t.Logf("stopped: %d requests over %.1fs, returned %.1fs after the start", m.Requests, m.DurationS, time.Since(start).Seconds())
	if m.Requests == 0 || m.DurationS < 1.5 || m.DurationS > 20 || m.LoadNode == nil {
		t.Errorf("a phase stopped after two seconds: %+v", m)
	}
	assertNoLoadService(t, s)
	return m
}

// admissionsFile is a user's scenario for the demo app, with operation
// names of its own.
const admissionsFile = `scenarios:
  - name: admissions
    flow:
      - post:
          name: admit patient
          url: /Patient
          json: {resourceType: Patient, active: true, name: [{family: "Remote{{ $vu }}-{{ $iteration }}", given: [Sam]}]}
          capture: {json: $.id, as: patient}
          expect: 201
      - get: {name: chart lookup, url: "/Patient/{{ patient }}", expect: 200}
      - delete: {name: discharge, url: "/Patient/{{ patient }}", expect: [200, 204]}
`

// usersScenario runs a phase of admissionsFile on the load node: the
// record must name the file's operations, not the demo CRUD's.
func usersScenario(t *testing.T, s *onSwarm, url string) {
	t.Helper()
	script, err := scenario.Parse("admissions.yaml", []byte(admissionsFile))
	if err != nil {
		t.Fatal(err)
	}
	req := sweep.LoadRequest{BaseURL: url, Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 2}, Duration: 2 * time.Second}
	m, err := s.driver(t, Options{Builtin: builtin.Options{Script: script}}).Run(t.Context(), req)
	if err != nil {
		t.Fatalf("remote Run of a user's scenario: %v", err)
	}
	ops := slices.Sorted(maps.Keys(m.Ops))
	t.Logf("user's scenario: %d requests, operations %q, errors %.2f%%", m.Requests, ops, 100*m.ErrorRate)
	if want := []string{"admit patient", "chart lookup", "discharge"}; !slices.Equal(ops, want) || m.Requests == 0 || m.ErrorRate > 0.01 {
		t.Errorf("operations %q with %d requests, error rate %v; want %q, nearly all answered", ops, m.Requests, m.ErrorRate, want)
	}
	assertNoLoadService(t, s)
}

// TestCancelLeavesNoLoadServiceBehind: cancelling a running remote phase
// returns promptly and removes the service and its container.
func TestCancelLeavesNoLoadServiceBehind(t *testing.T) {
	s := setUp(t)
	d := s.driver(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	go func() {
		// cancel once the far end runs: its container is on the node
		for ctx.Err() == nil && len(loadContainers(t, s)) == 0 {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		cancelled <- time.Now()
		cancel()
	}()
	req := sweep.LoadRequest{BaseURL: "http://127.0.0.1:9/", Load: results.LoadInfo{Model: "closed", VUs: 1}, Duration: time.Minute}
	_, err := d.Run(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Against the minute the phase had left, from the cancel rather than
	// from a start that includes placing the service on a loaded host.
	if took := time.Since(<-cancelled); took > 30*time.Second {
		t.Errorf("Run took %s to return after cancel", took)
	}
	assertNoLoadService(t, s)
	deadline := time.Now().Add(30 * time.Second)
	for len(loadContainers(t, s)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the load's container is still on node %s 30 s after the service was removed", s.load.ID)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// assertNoLoadService fails unless the manager lists no load service with
// the test's run label.
func assertNoLoadService(t *testing.T, s *onSwarm) {
	t.Helper()
	list, err := s.sw.Manager.ServiceList(t.Context(), swarm.ServiceListOptions{Filters: loadFilter(s.run)})
	if err != nil {
		t.Fatal(err)
	}
	for _, svc := range list {
		t.Errorf("service %s (%s) left behind", svc.Spec.Name, svc.ID)
	}
}

// loadContainers lists the containers of the test's load services on the
// load node.
func loadContainers(t *testing.T, s *onSwarm) []string {
	t.Helper()
	list, err := s.sw.Client(t, s.load).ContainerList(context.WithoutCancel(t.Context()),
		container.ListOptions{All: true, Filters: loadFilter(s.run)})
	if err != nil {
		t.Errorf("containers of node %s: %v", s.load.ID, err)
		return nil
	}
	ids := make([]string, 0, len(list))
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	return ids
}

// loadFilter selects the load services of run, and their containers.
func loadFilter(run string) filters.Args {
	return filters.NewArgs(filters.Arg("label", sweep.LabelRun+"="+run), filters.Arg("label", LabelLoad))
}

// startDemo runs the demo's database on the db node and the demo app on
// the app node as services with host-mode ports, removes them when the
// test ends, and returns the app's base URL once it answers /health.
func startDemo(t *testing.T, s *onSwarm) string {
	t.Helper()
	dbNode, appNode := s.sw.Node(t, "db"), s.sw.Node(t, "app")
	pg := s.sw.NodeImage(t, dbNode, "sweep-demo-postgres")
	app := s.sw.NodeImage(t, appNode, "sweep-demoapp")
	createService(t, s, "db", dbNode, testDBPort, 5432, &swarm.ContainerSpec{
		Image: pg, Args: []string{"postgres", "-c", "max_connections=200"},
		Env:    []string{"POSTGRES_USER=sweep", "POSTGRES_PASSWORD=sweep", "POSTGRES_DB=sweep"},
		Mounts: []mount.Mount{{Type: mount.TypeTmpfs, Target: "/var/lib/postgresql/data"}},
	})
	createService(t, s, "app", appNode, testAppPort, 8080, &swarm.ContainerSpec{
		Image: app,
		Env: []string{"BOX_WEB_THREAD=4", "BOX_DB_POOL_MAXIMUM_POOL_SIZE=8", "BOX_INSTANCE_NAME=remote-test",
			fmt.Sprintf("DATABASE_URL=postgres://sweep:sweep@%s:%d/sweep?sslmode=disable", dbNode.Addr, testDBPort)},
	})
	url := fmt.Sprintf("http://%s:%d/", appNode.Addr, testAppPort)
	waitHealthy(t, url+"health", 90*time.Second)
	return url
}

// createService creates a one-replica service named after the test's
// run, pinned to node, publishing port in host mode, removed at the end.
func createService(t *testing.T, s *onSwarm, name string, node swarmfixture.Node, published, target uint32, cs *swarm.ContainerSpec) {
	t.Helper()
	one := uint64(1)
	cs.Labels = map[string]string{sweep.LabelRun: s.run}
	spec := swarm.ServiceSpec{
		Annotations: swarm.Annotations{Name: fmt.Sprintf("sweeptest-%s-%d", name, time.Now().UnixNano()), Labels: cs.Labels},
		TaskTemplate: swarm.TaskSpec{ContainerSpec: cs, Placement: &swarm.Placement{Constraints: []string{"node.id==" + node.ID}},
			RestartPolicy: &swarm.RestartPolicy{Condition: swarm.RestartPolicyConditionNone}},
		Mode: swarm.ServiceMode{Replicated: &swarm.ReplicatedService{Replicas: &one}},
		EndpointSpec: &swarm.EndpointSpec{Mode: swarm.ResolutionModeDNSRR, Ports: []swarm.PortConfig{{
			Protocol: swarm.PortConfigProtocolTCP, TargetPort: target, PublishedPort: published, PublishMode: swarm.PortConfigPublishModeHost}}},
	}
	created, err := s.sw.Manager.ServiceCreate(t.Context(), spec, swarm.ServiceCreateOptions{})
	if err != nil {
		t.Fatalf("create %s service: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.sw.Manager.ServiceRemove(ctx, created.ID); err != nil && !client.IsErrNotFound(err) {
			t.Errorf("remove %s service: %v", name, err)
		}
	})
}

// waitHealthy polls url until it answers 200 or timeout passes.
func waitHealthy(t *testing.T, url string, timeout time.Duration) {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for {
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not healthy within %s: %v", url, timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
