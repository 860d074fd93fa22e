package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// kubeFaultRun starts `sweep run --kubernetes` on the demo (the app on
// node 1, PostgreSQL on node 2, the load a Job) as a process the
// test meets with a fault while it runs, with args after the common ones;
// it returns the process, the run directory, the run's sweep.json and its
// namespace, deleted when the test ends whatever happened.
func kubeFaultRun(t *testing.T, fx *k8sfixture.Fixture, env []string, args ...string) (*proc, string, results.Meta, string) {
	t.Helper()
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	bin, _ := demo(t)
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "run")
	c := cmdline{out: out, env: append([]string{"KUBECONFIG=" + fx.Kubeconfig}, env...), args: append([]string{"run", "--kubernetes",
		"--manifests", fx.Manifests(t, root, "demo.yaml"), "--service", "app", "--url", "http://app:8080",
		"--load-image", fx.DriveImage(t, root), "--load", "vus=4",
		"--warmup", "1s", "--control-every", "0", "--retries", "0", "--out", out}, args...)}
	p := start(t, bin, c)
	meta := waitMeta(t, p, out)
	ns := kube.Namespace(meta.RunID)
	t.Cleanup(func() { _ = kube.DeleteNamespace(context.Background(), fx.Client, ns, 2*time.Minute) })
	return p, out, meta, ns
}

// kubeMeasuring reports whether a measured phase's load pod runs in ns.
func kubeMeasuring(t *testing.T, fx *k8sfixture.Fixture, ns string) func() bool {
	return func() bool {
		l, err := fx.Client.Core.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: kube.LabelLoad + "=measure"})
		if err != nil {
			return false
		}
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning {
				return true
			}
		}
		return false
	}
}

// assertNamespaceGone fails when ns is still there.
func assertNamespaceGone(t *testing.T, fx *k8sfixture.Fixture, ns string) {
	t.Helper()
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err == nil {
		t.Errorf("namespace %s left after the run", ns)
	}
}

// TestKubernetesForwardedPodGoes deletes the database's pod, which the
// samplers reach through a port-forward (SWEEP_DB_DSN names the Service
// db), 2 s into the first cell's measured phase: that cell fails naming
// the pod, and the forward follows the Service to its next pod, so the
// next cells are ok with the database sampled again and the forward's
// close tells of no lost pod; nothing is left.
func TestKubernetesForwardedPodGoes(t *testing.T) {
	fx := k8sfixture.Up(t)
	p, out, meta, ns := kubeFaultRun(t, fx, []string{"SWEEP_DB_DSN=postgres://sweep:sweep@db:5432/sweep?sslmode=disable"},
		"--place", "load=sweep.index=2", "--cpus", "0.5,0.75,1", "--web-mult", "2", "--db-mult", "2", "--duration", "10s")
	waitFor(t, p, "the first cell's measured phase", kubeMeasuring(t, fx, ns))
	time.Sleep(2 * time.Second)
	pods := fx.Client.Core.CoreV1().Pods(ns)
	l, err := pods.List(t.Context(), metav1.ListOptions{LabelSelector: "app=db"})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("the database's pods: %v, %d", err, len(l.Items))
	}
	gone := l.Items[0].Name
	if err := pods.Delete(t.Context(), gone, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("deleted the database's pod %s", gone)
	code := p.wait(t)
	if code != exitFailure {
		t.Errorf("exit %d, want 1 (one cell failed)\nstderr:\n%s", code, p.stderr.String())
	}
	// the forward lost its pod and went on to the next: no error at its close
	if strings.Contains(p.stderr.String(), "port-forward") {
		t.Errorf("stderr tells of the port-forward after it followed the Service to its next pod:\n%s", p.stderr.String())
	}
	for i, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		t.Logf("cell %s: %s %q, db sampled %v", cell.ID, rec.Status, rec.Reason, rec.DB != nil)
		switch {
		case i == 0 && (rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "pod "+gone)):
			t.Errorf("cell %s, its database pod deleted: %s %q; want failed naming pod %s", cell.ID, rec.Status, rec.Reason, gone)
		case i > 0 && (rec.Status != results.StatusOK || rec.DB == nil || rec.DB.Sessions.TotalPeak < 1):
			t.Errorf("cell %s after: %s %q, db block %+v; want ok, the database sampled through the forward to its new pod",
				cell.ID, rec.Status, rec.Reason, rec.DB)
		}
	}
	assertNamespaceGone(t, fx, ns)
}

// TestKubernetesResizeRefused runs two cells in place (--in-place: the
// second differs in its CPU limit only, 0.5 to 0.6, the same web threads
// and pool) and, during the first one's
// measured phase, takes node 1's free CPU with a pod of the test's own
// namespace: the second cell's resize cannot fit, the kubelet keeps it
// pending, and that cell fails within the ready timeout naming the
// resize and the kubelet's reason, the first one ok; nothing is left.
// --name-env "": the default BOX_INSTANCE_NAME, set to each cell's id,
// makes every cell differ in more than its CPU, and --in-place then rolls
// out a new pod for each.
func TestKubernetesResizeRefused(t *testing.T) {
	fx := k8sfixture.Up(t)
	p, out, meta, ns := kubeFaultRun(t, fx, nil, "--place", "load=sweep.index=2", "--in-place", "--name-env", "", "--cpus", "0.5,0.6", "--web-mult", "2", "--db-mult", "2",
		"--duration", "5s", "--ready-timeout", "30s")
	waitFor(t, p, "the first cell's measured phase", kubeMeasuring(t, fx, ns))
	node := fx.Nodes[0].Name
	hogs := hogNode(t, fx, node, 0.05) // less than the 0.1 more the resize needs
	t.Logf("took node %s's free CPU but %g with %s", node, 0.05, hogs)
	code := p.wait(t)
	if code != exitFailure {
		t.Errorf("exit %d, want 1 (one cell failed)\nstderr:\n%s", code, p.stderr.String())
	}
	first, second := readRecord(t, out, meta.Cells[0].ID), readRecord(t, out, meta.Cells[1].ID)
	t.Logf("cell %s: %s %q; cell %s: %s %q", meta.Cells[0].ID, first.Status, first.Reason, meta.Cells[1].ID, second.Status, second.Reason)
	if first.Status != results.StatusOK {
		t.Errorf("the first cell: %s %q; want ok", first.Status, first.Reason)
	}
	if second.Status != results.StatusFailed || !strings.Contains(second.Reason, "resize") {
		t.Errorf("the cell whose resize the node refused: %s %q; want failed naming the resize", second.Status, second.Reason)
	}
	assertNamespaceGone(t, fx, ns)
}

// hogNode starts a pod in a namespace of the test's own (labelled as a
// run of sweep's, removed when the test ends) on node, requesting all the
// CPU the node has free but leave, and waits until it runs; it returns
// the namespace.
func hogNode(t *testing.T, fx *k8sfixture.Fixture, node string, leave float64) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	core := fx.Client.Core.CoreV1()
	n, err := core.Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pods, err := core.Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}
	free := n.Status.Allocatable.Cpu().MilliValue()
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, c := range p.Spec.Containers {
			free -= c.Resources.Requests.Cpu().MilliValue()
		}
	}
	take := free - int64(leave*1000)
	if take <= 0 {
		t.Fatalf("node %s has %dm CPU free; nothing to take", node, free)
	}
	ns := fmt.Sprintf("sweep-hog%d", time.Now().UnixNano()%1e9)
	if _, err := core.Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{sweep.LabelRun: strings.TrimPrefix(ns, "sweep-")}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.DeleteNamespace(context.Background(), fx.Client, ns, 2*time.Minute) })
	q := *resource.NewMilliQuantity(take, resource.DecimalSI)
	_, err = core.Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "hog"}, Spec: corev1.PodSpec{
		NodeName: node, TerminationGracePeriodSeconds: new(int64),
		Containers: []corev1.Container{{Name: "hog", Image: fx.ProbeImage, ImagePullPolicy: corev1.PullNever, Command: []string{"/probe", "sleep"},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q}}}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		p, err := core.Pods(ns).Get(ctx, "hog", metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning {
			return ns
		}
		if ctx.Err() != nil {
			t.Fatalf("the pod taking %s of node %s's CPU does not run: %v %+v", q.String(), node, err, p.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestKubernetesLaneNodeNotReady stops the kubelet of node 2 (SIGSTOP to
// the fixture's kubelet process, by its pidfile) during the measured
// phase of the lane pinned to it (--parallel 2: a lane a node), long
// enough for the node to go NotReady (the controller manager's 50 s grace
// and more), and resumes it (SIGCONT) once that lane's record is written:
// that lane's cell fails naming the node, the other lane's is ok, nothing
// waits for the stopped kubelet beyond its bounds, and no namespace is
// left. What it does to the shared fixture: node 2 is NotReady for a
// minute or two (other users' pods on it stay, unreachable through its
// kubelet, and new ones are not placed there); the test ends only once
// node 2 is Ready again, and fails if it does not come back within 2
// minutes.
func TestKubernetesLaneNodeNotReady(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) != 2 {
		t.Skipf("the fixture has %d nodes; this test needs 2", len(fx.Nodes))
	}
	node := fx.Nodes[1].Name
	p, out, meta, _ := kubeFaultRun(t, fx, nil, "--parallel", "2", "--cpus", "0.5", "--web-mult", "2", "--db-mult", "2",
		"--duration", "75s", "--max-failures", "1")
	lane2 := kube.LaneNamespace(meta.RunID, "l2")
	t.Cleanup(func() { _ = kube.DeleteNamespace(context.Background(), fx.Client, lane2, 2*time.Minute) })
	waitFor(t, p, "lane 2's measured phase", kubeMeasuring(t, fx, lane2))
	kubelet := stopKubelet(t, fx, 2)
	t.Logf("stopped the kubelet of %s (pid %d)", node, kubelet)
	waitNodeReady(t, fx, node, corev1.ConditionUnknown, 3*time.Minute)
	t.Logf("%s is NotReady", node)
	var recs []string
	deadline := time.Now().Add(3 * time.Minute)
	for len(recs) < 2 && time.Now().Before(deadline) && !p.exited() {
		recs, _ = filepath.Glob(filepath.Join(out, "cells", "*", "*", results.ResultFile))
		time.Sleep(time.Second)
	}
	if err := syscall.Kill(kubelet, syscall.SIGCONT); err != nil {
		t.Error(err)
	}
	t.Logf("resumed the kubelet of %s with %d records written", node, len(recs))
	code := p.wait(t)
	t.Logf("exit %d\nstderr:\n%s", code, p.stderr.String())
	recs, _ = filepath.Glob(filepath.Join(out, "cells", "*", "*", results.ResultFile))
	for _, f := range recs {
		rec, err := results.ReadRecord(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s %q, app on %s", f, rec.Status, rec.Reason, rec.Applied.Nodes["app"].ID)
		on2 := rec.Applied.Nodes["app"].ID == node
		switch {
		case on2 && (rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "node "+node)):
			t.Errorf("%s, on the stopped node: %s %q; want failed naming node %s", f, rec.Status, rec.Reason, node)
		case !on2 && rec.Status != results.StatusOK:
			t.Errorf("%s, on the other node: %s %q; want ok", f, rec.Status, rec.Reason)
		}
	}
	assertNamespaceGone(t, fx, kube.LaneNamespace(meta.RunID, "l1"))
	assertNamespaceGone(t, fx, lane2)
}

// stopKubelet stops node i's kubelet with SIGSTOP and resumes it
// (SIGCONT) when the test ends, waiting then until the node is Ready
// again; it returns the kubelet's pid.
func stopKubelet(t *testing.T, fx *k8sfixture.Fixture, i int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fx.Dir, "pids", fmt.Sprintf("kubelet-node%d.pid", i)))
	if err != nil {
		t.Fatalf("the kubelet of node %d: %v", i, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err != nil || !strings.Contains(string(cmd), "kubelet") {
		t.Fatalf("pid %d of node %d's pidfile is not its kubelet (%v)", pid, i, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	node := fx.Nodes[i-1].Name
	t.Cleanup(func() {
		if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
			t.Errorf("resume the kubelet of %s: %v", node, err)
		}
		waitNodeReady(t, fx, node, corev1.ConditionTrue, 2*time.Minute)
		t.Logf("%s is Ready again", node)
	})
	return pid
}

// waitNodeReady waits until node's Ready condition is want, failing the
// test after timeout.
func waitNodeReady(t *testing.T, fx *k8sfixture.Fixture, node string, want corev1.ConditionStatus, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), timeout)
	defer cancel()
	var last corev1.ConditionStatus
	for ctx.Err() == nil {
		if n, err := fx.Client.Core.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{}); err == nil {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady {
					last = c.Status
				}
			}
			if last == want {
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	t.Errorf("node %s: Ready %q after %s, want %q", node, last, timeout, want)
}
