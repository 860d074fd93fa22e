package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// startKubeInterleaved runs the demo on the Kubernetes fixture on the
// interleaved schedule: two targets at 0.5 CPU (web 1 pool 2, web 2
// pool 4), three rounds of 3 s slices, the load a Job on node 2; it
// waits for sweep.json.
func startKubeInterleaved(t *testing.T) (*k8sfixture.Fixture, string, *proc, results.Meta, string) {
	fx, out, p, meta, ns, _, _ := startKubeInterleavedCmd(t)
	return fx, out, p, meta, ns
}

// startKubeInterleavedCmd is startKubeInterleaved with its sweep binary
// and command line, to run again.
func startKubeInterleavedCmd(t *testing.T) (*k8sfixture.Fixture, string, *proc, results.Meta, string, string, cmdline) {
	t.Helper()
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	bin, _ := demo(t)
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "run")
	env := []string{"KUBECONFIG=" + fx.Kubeconfig, "SWEEP_DB_DSN=postgres://sweep:sweep@db:5432/sweep?sslmode=disable"}
	c := cmdline{out: out, env: env, args: []string{"run", "--kubernetes",
		"--manifests", fx.Manifests(t, root, "demo.yaml"), "--service", "app", "--url", "http://app:8080",
		"--ready-path", "/health", "--load-image", fx.DriveImage(t, root), "--place", "load=sweep.index=2", "--load", "vus=4",
		"--cpus", "0.5", "--web-mult", "2,4", "--db-mult", "2", "--warmup", "1s",
		"--schedule", "interleaved", "--slice", "3s", "--rounds", "3", "--duration", "9s", "--out", out}}
	p := start(t, bin, c)
	meta := waitMeta(t, p, out)
	ns := kube.Namespace(meta.RunID)
	t.Cleanup(func() { _ = kube.DeleteNamespace(context.Background(), fx.Client, ns, 2*time.Minute) })
	if len(meta.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(meta.Cells))
	}
	return fx, out, p, meta, ns, bin, c
}

// targetDeployments checks that each cell's target is a Deployment of
// its own with one ready pod (sweep.target on it, its cell among the
// pod's annotations) and a Service of its own selecting that pod alone,
// and that the manifests' target Deployment app is not created.
func targetDeployments(t *testing.T, fx *k8sfixture.Fixture, meta results.Meta, ns string) {
	t.Helper()
	ctx := t.Context()
	deps, err := fx.Client.Core.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var cells []string
	for _, d := range deps.Items {
		if d.Name == "app" {
			t.Errorf("the stack's own target Deployment app runs beside the targets")
		}
		name := d.Labels[sweep.LabelTarget]
		if name == "" {
			continue
		}
		pods := targetPods(t, fx, ns, name)
		if len(pods) != 1 || pods[0].Status.Phase != corev1.PodRunning {
			t.Errorf("target %s: %d pods, want 1 running", name, len(pods))
			continue
		}
		cells = append(cells, pods[0].Annotations[sweep.LabelCell])
		svc, err := fx.Client.Core.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("target %s: its Service: %v", name, err)
		} else if svc.Spec.Selector[sweep.LabelTarget] != name || svc.Spec.Type != corev1.ServiceTypeClusterIP {
			t.Errorf("target %s: Service selects %v (%s), want its pod alone, ClusterIP", name, svc.Spec.Selector, svc.Spec.Type)
		}
		t.Logf("target %s: Deployment %s, pod %s on %s, %s CPU", pods[0].Annotations[sweep.LabelCell], d.Name, pods[0].Name,
			pods[0].Spec.NodeName, limitOf(d))
	}
	slices.Sort(cells)
	var want []string
	for _, c := range meta.Cells {
		want = append(want, c.ID)
	}
	slices.Sort(want)
	if !slices.Equal(cells, want) {
		t.Errorf("target Deployments of cells %v, want one each of %v", cells, want)
	}
}

// targetPods lists the pods of the target named name that are not being
// deleted.
func targetPods(t *testing.T, fx *k8sfixture.Fixture, ns, name string) []corev1.Pod {
	t.Helper()
	l, err := fx.Client.Core.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: sweep.LabelTarget + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(l.Items, func(p corev1.Pod) bool { return p.DeletionTimestamp != nil })
}

func limitOf(d appsv1.Deployment) string {
	for _, c := range d.Spec.Template.Spec.Containers {
		if q, ok := c.Resources.Limits[corev1.ResourceCPU]; ok {
			return q.String()
		}
	}
	return "no"
}

// TestKubernetesInterleavedEndToEnd runs the demo interleaved on the
// Kubernetes fixture: while the group runs each target is a Deployment
// and a Service of its own, the run ends ok with every slice ok, its CPU
// limit read back from the pod (spec and the kubelet's status), its load
// proved delivered to that target's pod, and no namespace is left.
func TestKubernetesInterleavedEndToEnd(t *testing.T) {
	fx, out, p, meta, ns := startKubeInterleaved(t)
	waitFor(t, p, "round 1's first slice", func() bool { return measuring(out, 1, "") != "" })
	targetDeployments(t, fx, meta, ns)
	if code := p.wait(t); code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, p.stderr.String())
	}
	for _, cell := range meta.Cells {
		for k := 1; k <= 3; k++ {
			rec := sliceRecord(t, out, cell.ID, k)
			a := rec.Applied
			if rec.Status != results.StatusOK || rec.LoadSlice == nil || a.CPUs != cell.CPUs || !strings.Contains(a.ReadFrom, "status (kubelet)") ||
				a.Nodes["app"].ID == "" || a.Env["BOX_WEB_THREAD"] == "" {
				t.Errorf("%s round %d: %s (%s), %v CPUs read from %q, env %v, nodes %+v", cell.ID, k, rec.Status, rec.Reason, a.CPUs, a.ReadFrom, a.Env, a.Nodes)
			}
			if d := rec.Delivery; d == nil || d.Method != results.DeliveryNetwork || d.Ratio < sweep.MinDeliveryRatio {
				t.Errorf("%s round %d: delivery %+v; want the target pod's network counters at %g or more of the bytes sent", cell.ID, k, d, sweep.MinDeliveryRatio)
			}
			t.Logf("%s round %d: %.0f rps, p99 %.1f ms, app on %s", cell.ID, k, rec.RPS, rec.LatencyMS.P99, a.Nodes["app"].ID)
		}
	}
	if m := readMeta(t, out); m.Host.CPUCount == 0 || len(m.Images) == 0 {
		t.Errorf("sweep.json's facts: %d CPUs, images %v; want the targets' node's CPUs and the images", m.Host.CPUCount, m.Images)
	}
	assertNamespaceGone(t, fx, ns)
	assertJSONParses(t, out)
}

// TestKubernetesInterleavedTargetKilled runs the demo interleaved on the
// Kubernetes fixture and deletes the pod of the target whose slice opens
// round 3, mid-slice: that slice fails, naming the target; the other
// target's slice of round 3, after the deletion, is ok (another target's
// pod is no part of its stack), as are every slice of rounds 1 and 2; the
// run exits 1 (a failed slice) and leaves no namespace.
func TestKubernetesInterleavedTargetKilled(t *testing.T) {
	fx, out, p, meta, ns := startKubeInterleaved(t)
	var killed string
	waitFor(t, p, "round 3's first slice", func() bool { killed = measuring(out, 3, ""); return killed != "" })
	time.Sleep(time.Second)
	deps, err := fx.Client.Core.AppsV1().Deployments(ns).List(t.Context(), metav1.ListOptions{LabelSelector: sweep.LabelTarget})
	if err != nil {
		t.Fatal(err)
	}
	var victim *corev1.Pod
	for _, d := range deps.Items {
		for _, pod := range targetPods(t, fx, ns, d.Labels[sweep.LabelTarget]) {
			if pod.Annotations[sweep.LabelCell] == killed {
				victim = &pod
			}
		}
	}
	if victim == nil {
		t.Fatalf("no pod of the target of %s", killed)
	}
	if err := fx.Client.Core.CoreV1().Pods(ns).Delete(t.Context(), victim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	assertTargetKilled(t, p, out, meta, killed, time.Now())
	assertNamespaceGone(t, fx, ns)
}

// TestKubernetesInterleavedCtrlC interrupts the demo interleaved on the
// Kubernetes fixture in round 2's first slice: exit 130, that slice
// recorded interrupted, no namespace left; the same command resumes and
// runs round 2 again whole and round 3, every slice ok, the finished
// round 1 not again.
func TestKubernetesInterleavedCtrlC(t *testing.T) {
	fx, out, p, meta, ns, bin, c := startKubeInterleavedCmd(t)
	var cut string
	waitFor(t, p, "round 2's first slice", func() bool { cut = measuring(out, 2, ""); return cut != "" })
	time.Sleep(time.Second)
	p.signal(syscall.SIGINT)
	if code := p.wait(t); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want 130\nstderr:\n%s", code, p.stderr.String())
	}
	assertNamespaceGone(t, fx, ns)
	if rec := sliceRecord(t, out, cut, 2); rec.Status != results.StatusInterrupted {
		t.Errorf("the slice Ctrl-C cut: %s (%s)", rec.Status, rec.Reason)
	}
	first := map[string]time.Time{}
	for _, cell := range meta.Cells {
		first[cell.ID] = sliceRecord(t, out, cell.ID, 1).StartedAt
	}
	resumed := time.Now()
	code, again := runSweep(t, bin, c)
	if code != exitOK || !strings.Contains(again.stderr.String(), "resuming run "+meta.RunID) {
		t.Fatalf("resumed run: exit %d, want 0 and a resume notice\nstderr:\n%s", code, again.stderr.String())
	}
	for _, cell := range meta.Cells {
		if rec := sliceRecord(t, out, cell.ID, 1); rec.Status != results.StatusOK || !rec.StartedAt.Equal(first[cell.ID]) {
			t.Errorf("%s round 1 after the resume: %s, started %s (before: %s); want the finished slice kept", cell.ID, rec.Status, rec.StartedAt, first[cell.ID])
		}
		for k := 2; k <= 3; k++ {
			if rec := sliceRecord(t, out, cell.ID, k); rec.Status != results.StatusOK || rec.StartedAt.Before(resumed) {
				t.Errorf("%s round %d after the resume: %s (%s), started %s", cell.ID, k, rec.Status, rec.Reason, rec.StartedAt)
			}
		}
	}
	assertNamespaceGone(t, fx, ns)
	assertJSONParses(t, out)
}
