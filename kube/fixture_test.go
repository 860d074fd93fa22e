package kube_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestStackOnFixture drives the Kubernetes backend against the fixture
// (make k8s-up) with client-go alone: both nodes Ready; the demo from
// plain manifests (PostgreSQL on node 2, the app on node 1) applied into
// the run's namespace; two cells, each a new pod whose CPU limit and
// variables the read-back and the container's cgroup agree on; the
// built-in driver as a Job on node 2 driving create/read/update/delete
// through the Service name `app`; the target's pod deleted under a watch,
// seen and replaced; a cell of more CPU than any node has, and a load
// Job whose node selector no node matches, end their waits with
// ErrUnschedulable in seconds; Down leaves no namespace.
func TestStackOnFixture(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2 (K8S_NODES=2)", len(fx.Nodes))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	c := fx.Client

	nodes, err := c.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := 0
	for _, n := range nodes.Items {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	if ready < 2 || ready != len(nodes.Items) {
		t.Fatalf("%d of %d nodes Ready, want all and at least 2", ready, len(nodes.Items))
	}

	swept := []string{"BOX_WEB_THREAD", "BOX_DB_POOL_MAXIMUM_POOL_SIZE"}
	runID := fmt.Sprintf("kubetest%d", time.Now().UnixNano()%1e9)
	s, err := kube.New(ctx, kube.Options{StackOptions: sweep.StackOptions{
		Files: []string{fx.Manifests(t, "..", "demo.yaml")}, Service: "app", RunID: runID, SweptEnv: swept,
	}, Client: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Down(context.Background()); err != nil {
			t.Errorf("Down: %v", err)
		}
		if _, err := c.Core.CoreV1().Namespaces().Get(context.Background(), s.Namespace(), metav1.GetOptions{}); err == nil {
			t.Errorf("namespace %s still there after Down", s.Namespace())
		}
	})
	if got := s.Services(); !slices.Equal(got, []string{"db", "app"}) {
		t.Errorf("Services() = %v, want [db app]", got)
	}
	if err := s.StartDeps(ctx, sweep.TargetConfig{}, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	ns, err := c.Core.CoreV1().Namespaces().Get(ctx, s.Namespace(), metav1.GetOptions{})
	if err != nil || ns.Labels[sweep.LabelRun] != runID {
		t.Fatalf("namespace %s: %v, labels %v", s.Namespace(), err, ns.Labels)
	}

	drv, err := kube.NewDriver(c, kube.DriverOptions{Image: fx.DriveImage(t, ".."), Namespace: s.Namespace(),
		Labels: map[string]string{sweep.LabelRun: runID}, NodeSelector: map[string]string{"sweep.index": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	var firstContainer string
	for i, cell := range []struct {
		cpus      float64
		web, pool string
		quota     int64
		cellID    string
	}{{0.5, "2", "4", 50000, "cpu_0.5__web_2__db_4"}, {1, "3", "6", 100000, "cpu_1__web_3__db_6"}} {
		cfg := sweep.TargetConfig{CPUs: cell.cpus, Env: map[string]string{swept[0]: cell.web, swept[1]: cell.pool},
			Labels: map[string]string{"sweep.cell": cell.cellID}}
		a := applied(ctx, t, s, cfg)
		if a.CPUs != cell.cpus || a.Env[swept[0]] != cell.web || a.Env[swept[1]] != cell.pool {
			t.Errorf("cell %d read back cpus %g env %v, want %g %s/%s", i, a.CPUs, a.Env, cell.cpus, cell.web, cell.pool)
		}
		if a.Nodes["app"].ID != fx.Nodes[0].Name {
			t.Errorf("cell %d: app on node %q, want %q", i, a.Nodes["app"].ID, fx.Nodes[0].Name)
		}
		if a.ContainerID == "" || a.ContainerID == firstContainer {
			t.Errorf("cell %d: container %q, want a new one (the first was %q)", i, a.ContainerID, firstContainer)
		}
		firstContainer = a.ContainerID
		q, err := k8sfixture.ContainerCPU("/sys/fs/cgroup", a.ContainerID)
		if err != nil {
			t.Fatal(err)
		}
		if q.Quota != cell.quota || q.Period != 100000 {
			t.Errorf("cell %d: cgroup %s holds quota %d per %d µs, want %d per 100000", i, q.Dir, q.Quota, q.Period, cell.quota)
		}
		t.Logf("cell %d: %g CPUs, env %v on %s; cgroup %d/%d (%s); read from %s", i, a.CPUs, a.Env, a.Nodes["app"].ID, q.Quota, q.Period, q.Dir, a.ReadFrom)

		var ivs int
		m, err := drv.Run(ctx, sweep.LoadRequest{BaseURL: "http://app:8080", Duration: 3 * time.Second,
			Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 2}, Interval: func(results.Interval) { ivs++ }})
		if err != nil {
			t.Fatal(err)
		}
		var errs int64
		for _, n := range m.Errors {
			errs += n
		}
		if m.Requests < 10 || errs > 0 || m.LoadNode == nil || m.LoadNode.ID != fx.Nodes[1].Name {
			t.Errorf("cell %d load: %d requests, errors %v, node %+v; want requests, no error, node %s", i, m.Requests, m.Errors, m.LoadNode, fx.Nodes[1].Name)
		}
		if ivs < 2 {
			t.Errorf("cell %d load: %d interval frames over 3 s", i, ivs)
		}
		t.Logf("cell %d load from %s: %d requests, %.0f/s, driver CPU %s", i, m.LoadNode.ID, m.Requests, m.RPS, m.DriverCPU)
	}

	w, err := s.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := c.Core.CoreV1().Pods(s.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "app=app"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("app pods: %v, %d", err, len(pods.Items))
	}
	if err := c.Core.CoreV1().Pods(s.Namespace()).Delete(ctx, pods.Items[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Changed():
	case <-time.After(20 * time.Second):
		t.Fatal("the watch saw no change 20 s after the target's pod was deleted")
	}
	time.Sleep(2 * time.Second) // the replacement's creation
	evs, err := w.Stop(ctx)
	if err != nil {
		t.Errorf("watch: %v", err)
	}
	var target, appeared bool
	for _, e := range evs {
		target = target || (e.Target && e.Service == "app")
		appeared = appeared || e.Action == "appeared"
	}
	if !target || !appeared {
		t.Errorf("watch events %+v: want the target's pod going and a new one appearing", evs)
	}
	if err := s.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatalf("no replacement: %v", err)
	}
	a, err := s.ReadBack(ctx)
	if err != nil || a.ContainerID == firstContainer || a.CPUs != 1 {
		t.Errorf("after the delete: %v, container %s (was %s), cpus %g", err, a.ContainerID, firstContainer, a.CPUs)
	}

	// A cell whose CPU no node has: the scheduler's reason in seconds,
	// not the ready timeout.
	if err := s.Apply(ctx, sweep.TargetConfig{CPUs: 64, Env: map[string]string{swept[0]: "2", swept[1]: "4"}}); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err = s.WaitReady(ctx, 2*time.Minute)
	took := time.Since(began)
	t.Logf("64 CPUs: %v after %s", err, took.Round(time.Second))
	if !errors.Is(err, kube.ErrUnschedulable) || !errors.Is(err, sweep.ErrNotReady) || !strings.Contains(err.Error(), "Insufficient cpu") || took > time.Minute {
		t.Errorf("a cell of 64 CPUs: %v after %s; want ErrUnschedulable naming Insufficient cpu within a minute", err, took)
	}
	// A load Job no node can take (--place load= a label no node has):
	// the same, not the start timeout.
	nowhere, err := kube.NewDriver(c, kube.DriverOptions{Image: fx.DriveImage(t, ".."), Namespace: s.Namespace(),
		Labels: map[string]string{sweep.LabelRun: runID}, NodeSelector: map[string]string{"sweep.index": "nowhere"}})
	if err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	_, err = nowhere.Run(ctx, sweep.LoadRequest{BaseURL: "http://app:8080", Duration: 3 * time.Second,
		Load: results.LoadInfo{Driver: "builtin", Model: "closed", VUs: 2}})
	took = time.Since(began)
	t.Logf("load Job on no node: %v after %s", err, took.Round(time.Second))
	if !errors.Is(err, kube.ErrUnschedulable) || errors.Is(err, sweep.ErrNotReady) || !strings.Contains(err.Error(), "node affinity/selector") || took > 45*time.Second {
		t.Errorf("a load Job no node matches: %v after %s; want ErrUnschedulable (not the target's not-ready) naming the selector within 45 s", err, took)
	}
}

// TestResizeInPlaceOnFixture: with InPlace, a cell that differs from the
// last only in its CPU limit resizes the running pod (pods/resize): the
// same container, the new limit and request in the pod's spec, in the
// kubelet's status and in the container's cgroup; a cell that changes a
// variable too rolls out a new pod.
func TestResizeInPlaceOnFixture(t *testing.T) {
	fx := k8sfixture.Up(t)
	ctx, cancel := context.WithTimeout(t.Context(), 6*time.Minute)
	defer cancel()
	swept := []string{"BOX_WEB_THREAD", "BOX_DB_POOL_MAXIMUM_POOL_SIZE"}
	s, err := kube.New(ctx, kube.Options{StackOptions: sweep.StackOptions{
		Files: []string{fx.Manifests(t, "..", "demo.yaml")}, Service: "app", RunID: fmt.Sprintf("kuberesize%d", time.Now().UnixNano()%1e9),
		SweptEnv: swept}, Client: fx.Client, InPlace: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Down(context.Background()); err != nil {
			t.Errorf("Down: %v", err)
		}
	})
	if err := s.StartDeps(ctx, sweep.TargetConfig{}, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	var was string
	for i, cell := range []struct {
		cpus     float64
		web      string
		inPlace  bool
		quota    int64
		template float64 // the Deployment's template's CPU, recorded with a resize
	}{{0.5, "2", false, 50000, 0}, {0.75, "2", true, 75000, 0.5}, {0.5, "2", true, 50000, 0.5}, {0.5, "3", false, 50000, 0},
		{0.75, "3", true, 75000, 0.5}} {
		a := applied(ctx, t, s, sweep.TargetConfig{CPUs: cell.cpus, Env: map[string]string{swept[0]: cell.web, swept[1]: "4"}})
		q, err := k8sfixture.ContainerCPU("/sys/fs/cgroup", a.ContainerID)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cell %d: %g CPUs, %s=%s, container %s, resized in place %v, cgroup %d/%d; read from %s", i, a.CPUs, swept[0], a.Env[swept[0]],
			a.ContainerID, a.ResizedInPlace, q.Quota, q.Period, a.ReadFrom)
		if a.CPUs != cell.cpus || a.Env[swept[0]] != cell.web || a.ResizedInPlace != cell.inPlace || q.Quota != cell.quota || q.Period != 100000 {
			t.Errorf("cell %d: %g CPUs, %s=%s, resized in place %v, cgroup %d/%d; want %g, %s, %v, %d/100000", i, a.CPUs, swept[0],
				a.Env[swept[0]], a.ResizedInPlace, q.Quota, q.Period, cell.cpus, cell.web, cell.inPlace, cell.quota)
		}
		if same := a.ContainerID == was; same != cell.inPlace {
			t.Errorf("cell %d: container %s after %s; want the same one exactly when resized in place", i, a.ContainerID, was)
		}
		if a.TemplateCPUs != cell.template {
			t.Errorf("cell %d: the record says the template holds %g CPUs, want %g", i, a.TemplateCPUs, cell.template)
		}
		was = a.ContainerID
	}
	// The pod of the last, resized cell replaced: it comes back at the
	// template's limit, as the record said it would.
	pods, err := fx.Client.Core.CoreV1().Pods(s.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "app=app"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("the target's pods: %d (%v), want 1", len(pods.Items), err)
	}
	if err := fx.Client.Core.CoreV1().Pods(pods.Items[0].Namespace).Delete(ctx, pods.Items[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var a results.Applied
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(2 * time.Second) {
		if err := s.WaitReady(ctx, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
		if a, err = s.ReadBack(ctx); err == nil && a.ContainerID != "" && a.ContainerID != was {
			break
		}
	}
	if err != nil || a.CPUs != 0.5 || a.ContainerID == was {
		t.Errorf("after the resized pod was replaced: %g CPUs, container %s (was %s), %v; want the template's 0.5 in a new container",
			a.CPUs, a.ContainerID, was, err)
	}
}

// applied applies cfg to s as the runner does, waits until ready and
// returns what the stack reads back.
func applied(ctx context.Context, t *testing.T, s *kube.Stack, cfg sweep.TargetConfig) results.Applied {
	t.Helper()
	if err := s.Apply(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	a, err := s.ReadBack(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
