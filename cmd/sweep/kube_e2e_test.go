package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// TestKubernetesRunEndToEnd sweeps the demo on the Kubernetes fixture as
// a user would: sweep run --kubernetes from the manifests in the repo
// (PostgreSQL on node 2, the app on node 1), four cells, the built-in
// driver as a Job on node 2 reaching the app by its Service name, the
// database sampled through a port-forward. Every cell must be ok, its CPU
// limit read back from the pod (spec and the kubelet's status) and found
// in the cgroup of the container the cell measured (read from this host
// while the run goes: the fixture's kubelets take container metrics from
// containerd, which reports no quota), its load run on node 2, the load
// proved delivered, and the run must leave no namespace.
func TestKubernetesRunEndToEnd(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	out := t.TempDir() + "/run"
	// the database sampler through a port-forward to the Service db, as
	// the app's pods dial it
	env := fx.Env.With("HOME="+t.TempDir(), "SWEEP_DB_DSN=postgres://sweep:sweep@db:5432/sweep?sslmode=disable")
	quotas := watchQuotas(t, fx, "app=app")
	code, _, stderr := runCLIEnv(t, env, "run", "--kubernetes",
		"--manifests", fx.Manifests(t, "../..", "demo.yaml"), "--service", "app", "--url", "http://app:8080",
		"--ready-path", "/health", "--load-image", fx.DriveImage(t, "../.."), "--place", "load=sweep.index=2",
		"--cpus", "0.5,1", "--web-mult", "2,4", "--db-mult", "2", "--load", "vus=8",
		"--warmup", "1s", "--duration", "3s", "--control-every", "0", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(meta.Cells))
	}
	cgroups := quotas()
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		a := rec.Applied
		q, seen := cgroups[strings.TrimPrefix(a.ContainerID, "containerd://")]
		if rec.Status != results.StatusOK || a.CPUs != cell.CPUs || !strings.Contains(a.ReadFrom, "status (kubelet)") || !seen || q.Cores() != cell.CPUs {
			t.Errorf("cell %s: %s (%s), %v CPUs read from %q, container %s's cgroup %+v (seen %v); want ok, %v CPUs in spec, status and cgroup",
				cell.ID, rec.Status, rec.Reason, a.CPUs, a.ReadFrom, a.ContainerID, q, seen, cell.CPUs)
		}
		if a.Nodes["app"].ID != fx.Nodes[0].Name || rec.Measurement.LoadNode == nil || rec.Measurement.LoadNode.ID != fx.Nodes[1].Name {
			t.Errorf("cell %s: app on %+v, load on %+v; want %s and %s", cell.ID, a.Nodes["app"], rec.Measurement.LoadNode, fx.Nodes[0].Name, fx.Nodes[1].Name)
		}
		if rec.Measurement.Requests == 0 {
			t.Errorf("cell %s: no request measured", cell.ID)
		}
		if r, ok := rec.Resources["app"]; !ok || r.Samples < 2 || r.CPUCoresMean <= 0 || r.CPUCoresMean > 1.1*cell.CPUs || r.CPULimitCores != cell.CPUs || r.MemPeakBytes == 0 {
			t.Errorf("cell %s: the target's resources %+v (%v); want its CPU (above 0, within the %g limit), throttling and memory from the kubelet, 2 samples or more",
				cell.ID, r, ok, cell.CPUs)
		} else {
			t.Logf("cell %s: target CPU %.2f cores mean (%.0f %% of %g), %d of %d periods throttled, memory peak %d MiB, %d samples", cell.ID,
				r.CPUCoresMean, r.CPUPctOfLimitMean, r.CPULimitCores, r.ThrottledPeriods, r.Periods, r.MemPeakBytes>>20, r.Samples)
		}
		if rec.DB == nil || rec.DB.Sessions.TotalPeak < 1 || rec.DB.Sessions.TotalPeak > cell.DBPool+1 {
			t.Errorf("cell %s: db block %+v; want the database's sessions sampled through the port-forward, 1 to the pool %d (+1)", cell.ID, rec.DB, cell.DBPool)
		} else {
			t.Logf("cell %s: db sessions peak %d (pool %d)", cell.ID, rec.DB.Sessions.TotalPeak, cell.DBPool)
		}
		if d := rec.Delivery; d == nil || d.Method != results.DeliveryNetwork || d.Ratio < sweep.MinDeliveryRatio {
			t.Errorf("cell %s: delivery %+v; want the target pod's network counters at %g or more of the bytes sent", cell.ID, d, sweep.MinDeliveryRatio)
		} else {
			t.Logf("cell %s: delivery %d of %d bytes (%.2f) over %.1f s", cell.ID, d.ReceivedBytes, d.SentBytes, d.Ratio, d.WindowS)
		}
	}
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), kube.Namespace(meta.RunID), metav1.GetOptions{}); err == nil {
		t.Errorf("namespace %s left after the run", kube.Namespace(meta.RunID))
	}
	exportApplied(t, fx, out)
}

// exportApplied exports the run's throughput pick at 1 CPU with --format
// kubernetes and applies the patch as a user would (a strategic merge
// patch, what kubectl patch --type strategic sends) to the demo's
// Deployment, running in a namespace of its own with other settings; the
// pod it rolls out must carry exactly the exported limit, request and
// variables, and its cgroup the limit.
func exportApplied(t *testing.T, fx *k8sfixture.Fixture, run string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "patch.yaml")
	code, _, stderr := runCLIEnv(t, fx.Env, "export", run, "--cpus", "1", "--profile", "throughput", "--format", "kubernetes", "-o", file)
	if code != exitOK {
		t.Fatalf("export: exit %d\n%s", code, stderr)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&doc); err != nil {
		t.Fatalf("the patch %s: %v", raw, err)
	}
	patch, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var want appsv1.Deployment
	if err := json.Unmarshal(patch, &want); err != nil || len(want.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the patch %s: %v", raw, err)
	}
	wc := want.Spec.Template.Spec.Containers[0]
	if want.Name != "app" || wc.Name != "app" || wc.Resources.Limits.Cpu().MilliValue() != 1000 || len(wc.Env) != 2 {
		t.Fatalf("the patch %s: want Deployment app, container app, limit 1 CPU, two variables", raw)
	}

	ctx := t.Context()
	swept := []string{"BOX_WEB_THREAD", "BOX_DB_POOL_MAXIMUM_POOL_SIZE"}
	st, err := kube.New(ctx, kube.Options{StackOptions: sweep.StackOptions{Files: []string{fx.Manifests(t, repoRoot(t), "demo.yaml")},
		Service: "app", RunID: fmt.Sprintf("export%d", time.Now().UnixNano()%1e9), SweptEnv: swept}, Client: fx.Client})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Down(context.Background()); err != nil {
			t.Errorf("down: %v", err)
		}
	})
	if err := st.StartDeps(ctx, sweep.TargetConfig{}, 4*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, sweep.TargetConfig{CPUs: 0.5, Env: map[string]string{swept[0]: "1", swept[1]: "1"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.Client.Core.AppsV1().Deployments(st.Namespace()).Patch(ctx, "app", types.StrategicMergePatchType, patch,
		metav1.PatchOptions{}); err != nil {
		t.Fatalf("the exported patch applied: %v", err)
	}
	if err := st.WaitReady(ctx, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	pods, err := fx.Client.Core.CoreV1().Pods(st.Namespace()).List(ctx, metav1.ListOptions{LabelSelector: "app=app"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("the patched Deployment's pods: %v, %d", err, len(pods.Items))
	}
	pod := pods.Items[0]
	var got corev1.Container
	for _, c := range pod.Spec.Containers {
		if c.Name == "app" {
			got = c
		}
	}
	env := map[string]string{}
	for _, e := range got.Env {
		env[e.Name] = e.Value
	}
	for _, e := range wc.Env {
		if env[e.Name] != e.Value {
			t.Errorf("the patched pod's %s = %q, the export says %q", e.Name, env[e.Name], e.Value)
		}
	}
	if !got.Resources.Limits.Cpu().Equal(*wc.Resources.Limits.Cpu()) || !got.Resources.Requests.Cpu().Equal(*wc.Resources.Requests.Cpu()) {
		t.Errorf("the patched pod's CPU limit %s, request %s; the export says %s and %s", got.Resources.Limits.Cpu(),
			got.Resources.Requests.Cpu(), wc.Resources.Limits.Cpu(), wc.Resources.Requests.Cpu())
	}
	a, err := st.ReadBack(ctx)
	if err != nil {
		t.Fatal(err)
	}
	q, err := k8sfixture.ContainerCPU("/sys/fs/cgroup", a.ContainerID)
	if err != nil {
		t.Fatal(err)
	}
	if q.Cores() != 1 {
		t.Errorf("the patched pod's cgroup holds %d per %d µs, want 1 CPU", q.Quota, q.Period)
	}
	t.Logf("export %s applied: pod %s with %s CPU (cgroup %d/%d), env %v", file, pod.Name, got.Resources.Limits.Cpu(), q.Quota, q.Period, env)
}

// TestKubernetesLoadElsewhereFailsCells points --url at a second copy of
// the demo app (Service decoy, manifests/decoy.yaml) that answers every
// request while the target sits idle: the target pod's network counters
// (the kubelet's summary) stay far below what the driver sent, and the
// cell fails, naming the URL.
func TestKubernetesLoadElsewhereFailsCells(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	root, out := repoRoot(t), filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLIEnv(t, fx.Env.With("HOME="+t.TempDir()), "run", "--kubernetes",
		"--manifests", fx.Manifests(t, root, "demo.yaml", "decoy.yaml"), "--service", "app", "--url", "http://decoy:8080",
		"--load-image", fx.DriveImage(t, root), "--place", "load=sweep.index=2", "--load", "vus=4",
		"--cpus", "0.5", "--web-mult", "4", "--db-mult", "2", "--warmup", "1s", "--duration", "3s",
		"--retries", "0", "--control-every", "0", "--out", out)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	assertNotDelivered(t, readRecord(t, out, meta.Cells[0].ID), "http://decoy:8080")
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), kube.Namespace(meta.RunID), metav1.GetOptions{}); err == nil {
		t.Errorf("namespace %s left after the run", kube.Namespace(meta.RunID))
	}
}

// TestKubernetesFaultAndCtrlC meets a Kubernetes run on the fixture with
// real events: the target's pod deleted during the first cell's measured
// phase (the cell must fail, naming app); sweep clean --kubernetes while
// the run lives (its namespace must be spared, and the run named is bad
// input); then Ctrl-C (SIGINT to the process group) during the second
// cell's measured phase must end the run with 130 and leave no namespace.
func TestKubernetesFaultAndCtrlC(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	bin, _ := demo(t)
	root := repoRoot(t)
	out := filepath.Join(t.TempDir(), "run")
	env := []string{"KUBECONFIG=" + fx.Kubeconfig}
	c := cmdline{out: out, env: env, args: []string{"run", "--kubernetes",
		"--manifests", fx.Manifests(t, root, "demo.yaml"), "--service", "app", "--url", "http://app:8080",
		"--load-image", fx.DriveImage(t, root), "--place", "load=sweep.index=2", "--load", "vus=4",
		"--cpus", "0.5,1", "--web-mult", "2", "--db-mult", "2", "--warmup", "1s", "--duration", "10s",
		"--control-every", "0", "--out", out}}
	p := start(t, bin, c)
	meta := waitMeta(t, p, out)
	ns := kube.Namespace(meta.RunID)
	t.Cleanup(func() { _ = kube.DeleteNamespace(context.Background(), fx.Client, ns, 2*time.Minute) })
	pods := fx.Client.Core.CoreV1().Pods(ns)
	waitFor(t, p, "the first cell's measured phase", kubeMeasuring(t, fx, ns))
	time.Sleep(2 * time.Second)
	l, err := pods.List(t.Context(), metav1.ListOptions{LabelSelector: "app=app"})
	if err != nil || len(l.Items) != 1 {
		t.Fatalf("the target's pods: %v, %d", err, len(l.Items))
	}
	if err := pods.Delete(t.Context(), l.Items[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(out, "cells", meta.Cells[0].ID, "r1", results.ResultFile)
	waitFor(t, p, "the first cell's record", func() bool { return fileExists(first) })
	if rec, err := results.ReadRecord(first); err != nil || rec.Status != results.StatusFailed || !strings.Contains(rec.Reason, "app") {
		t.Errorf("the first cell with its target's pod deleted: %s (%s) %v, want failed naming app", rec.Status, rec.Reason, err)
	}

	waitFor(t, p, "the second cell's measured phase", kubeMeasuring(t, fx, ns))
	cenv := fx.Env.With("HOME=" + t.TempDir())
	code, stdout, stderr := runCLIEnv(t, cenv, "clean", "--kubernetes")
	if code != exitOK || !strings.Contains(stdout, "run "+meta.RunID+": skipped") {
		t.Errorf("clean beside the live run: exit %d, %q %q; want it skipped", code, stdout, stderr)
	}
	if code, _, stderr := runCLIEnv(t, cenv, "clean", "--kubernetes", "--run", meta.RunID); code != exitBadInput || !strings.Contains(stderr, "--force") {
		t.Errorf("clean --run of the live run: exit %d, %q; want 2 naming --force", code, stderr)
	}
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err != nil {
		t.Fatalf("the live run's namespace after clean: %v", err)
	}
	p.signal(syscall.SIGINT)
	if code := p.wait(t); code != exitInterrupted {
		t.Errorf("exit %d after SIGINT, want 130\nstderr:\n%s", code, p.stderr.String())
	}
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); err == nil {
		t.Errorf("namespace %s left after Ctrl-C", ns)
	}
}

// TestKubernetesLanes runs the demo with --parallel 2 on the fixture's two
// nodes: a namespace per lane with every pod pinned to the lane's node
// (the manifests' own node selectors put the app and PostgreSQL on
// different nodes; a lane overrides them), its load a Job on that node
// and its database sampled through a port-forward of its own; the first
// cell measured on both lanes at once as the control; no namespace left.
// More lanes than the cluster has nodes is refused first, naming
// --parallel, with nothing created.
func TestKubernetesLanes(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) != 2 {
		t.Skipf("the fixture has %d nodes; this test needs 2", len(fx.Nodes))
	}
	root := repoRoot(t)
	env := fx.Env.With("HOME="+t.TempDir(), "SWEEP_DB_DSN=postgres://sweep:sweep@db:5432/sweep?sslmode=disable")
	args := func(out string, n int) []string {
		return []string{"run", "--kubernetes", "--parallel", fmt.Sprint(n), "--manifests", fx.Manifests(t, root, "demo.yaml"),
			"--service", "app", "--url", "http://app:8080", "--load-image", fx.DriveImage(t, root), "--load", "vus=4",
			"--cpus", "0.5,0.75", "--web-mult", "2", "--db-mult", "2", "--warmup", "1s", "--duration", "3s", "--out", out}
	}
	tooMany := filepath.Join(t.TempDir(), "many")
	start := time.Now()
	code, _, stderr := runCLIEnv(t, env, args(tooMany, 3)...)
	if code != exitBadInput || !strings.Contains(stderr, "--parallel") || !strings.Contains(stderr, "3 lanes, 2 ready and schedulable node(s)") {
		t.Errorf("--parallel 3 on 2 nodes: exit %d, want 2 naming --parallel and the nodes\nstderr:\n%s", code, stderr)
	}
	// A node list, against a run that would start: room for a loaded host.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("--parallel 3 on 2 nodes took %s to refuse", d)
	}
	if _, err := os.Stat(tooMany); err == nil {
		t.Errorf("bad input left %s behind", tooMany)
	}

	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLIEnv(t, env, args(out, 2)...)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	first := meta.Cells[0].ID
	nodes := map[string]bool{}
	for dir, rec := range laneRecords(t, out, meta) {
		a, m := rec.Applied, rec.Measurement
		t.Logf("%s: %s, %.0f RPS, app on %s, db on %s, load on %+v, db sessions %v", dir, rec.Status, rec.RPS, a.Nodes["app"].ID, a.Nodes["db"].ID, m.LoadNode, rec.DB != nil)
		if rec.Status != results.StatusOK || a.Nodes["app"].ID == "" || a.Nodes["db"].ID != a.Nodes["app"].ID ||
			m.LoadNode == nil || m.LoadNode.ID != a.Nodes["app"].ID || rec.DB == nil {
			t.Errorf("%s: %s (%s), nodes %+v, load on %+v, db block %v; want ok, app, db and load on the lane's node, the database sampled",
				dir, rec.Status, rec.Reason, a.Nodes, m.LoadNode, rec.DB != nil)
		}
		nodes[a.Nodes["app"].ID] = true
	}
	if len(nodes) != 2 {
		t.Errorf("the target ran on %d node(s), want 2 (one per lane)", len(nodes))
	}
	if !strings.Contains(stderr, "control cell "+first+" on lane 2") || !strings.Contains(stdout, "measured "+first+" control") {
		t.Errorf("want the control on lane 2 in stderr and the nodes' cells in the report\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	for _, lane := range []string{"l1", "l2"} {
		if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), kube.LaneNamespace(meta.RunID, lane), metav1.GetOptions{}); err == nil {
			t.Errorf("namespace %s left after the run", kube.LaneNamespace(meta.RunID, lane))
		}
	}
}

// watchQuotas reads, every 200 ms until the test ends or the returned
// function is called, the CPU quota in the cgroup of every running
// container of the pods selector picks in the fixture's namespaces
// (from this host: the fixture's nodes share its kernel); the function
// stops the watch and returns the quotas by container id.
func watchQuotas(t *testing.T, fx *k8sfixture.Fixture, selector string) func() map[string]k8sfixture.CPUQuota {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	got := map[string]k8sfixture.CPUQuota{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			l, err := fx.Client.Core.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err == nil {
				for _, p := range l.Items {
					for _, cs := range p.Status.ContainerStatuses {
						id := strings.TrimPrefix(cs.ContainerID, "containerd://")
						if _, ok := got[id]; ok || cs.State.Running == nil || !strings.HasPrefix(p.Namespace, "sweep-") {
							continue
						}
						if q, err := k8sfixture.ContainerCPU("/sys/fs/cgroup", id); err == nil {
							got[id] = q
						}
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	stop := func() map[string]k8sfixture.CPUQuota {
		cancel()
		<-done
		return got
	}
	t.Cleanup(func() { stop() })
	return stop
}

// TestKubernetesOrdersScenario sweeps the order service example (an API
// unlike the demo's: integer ids, PATCH, a search; knobs of its own
// names) on the Kubernetes fixture from its own manifests, with its
// scenario file: the scenario travels with the load Job, every cell is
// ok, every step of the scenario an operation of the record with 0 %
// errors, the delivery proof and the database sampler as for the demo.
func TestKubernetesOrdersScenario(t *testing.T) {
	fx := k8sfixture.Up(t)
	root := repoRoot(t)
	images := map[string]string{}
	for _, kv := range testenv.Images(t, root, "pg", "orders") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			images[k] = v
		}
	}
	pg, app := images["SWEEP_DEMO_PG_IMAGE"], images["SWEEP_EXAMPLE_ORDERS_IMAGE"]
	if pg == "" || app == "" {
		t.Fatalf("images.sh pg orders gave %v", images)
	}
	if err := fx.LoadImages(root, pg, app); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "examples", "orders", "k8s", "orders.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	manifests := filepath.Join(t.TempDir(), "orders.yaml")
	local := strings.NewReplacer("image: postgres:15", "image: "+pg, "image: sweep-example-orders:latest", "image: "+app).Replace(string(src))
	if strings.Contains(local, "image: postgres:15") || strings.Contains(local, "image: sweep-example-orders:latest") {
		t.Fatalf("the manifests' images were not replaced by the local ones (%s, %s)", pg, app)
	}
	if err := os.WriteFile(manifests, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir() + "/run"
	env := fx.Env.With("HOME="+t.TempDir(), "SWEEP_DB_DSN=postgres://sweep:sweep@db:5432/sweep?sslmode=disable")
	code, _, stderr := runCLIEnv(t, env, "run", "--kubernetes", "--manifests", manifests, "--service", "app",
		"--web-env", "ORDERS_WORKERS", "--pool-env", "ORDERS_DB_POOL", "--url", "http://app:8080", "--ready-path", "/healthz",
		"--scenario", filepath.Join(root, "examples", "orders", "scenario.yaml"), "--load-image", fx.DriveImage(t, root),
		"--cpus", "0.5", "--web-mult", "2,4", "--db-mult", "2", "--load", "vus=4",
		"--warmup", "1s", "--duration", "3s", "--control-every", "0", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 2 {
		t.Fatalf("%d cells, want 2", len(meta.Cells))
	}
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		if rec.Status != results.StatusOK {
			t.Errorf("cell %s: %s (%s), want ok", cell.ID, rec.Status, rec.Reason)
			continue
		}
		t.Logf("cell %s: %.0f RPS, p99 %.1f ms, operations %d", cell.ID, rec.RPS, rec.LatencyMS.P99, len(rec.Ops))
		if f := rec.Load.Scenario; f == nil || f.Name != "scenario.yaml" {
			t.Errorf("cell %s: load.scenario %+v, want scenario.yaml", cell.ID, f)
		}
		if rec.Applied.Env["ORDERS_WORKERS"] != fmt.Sprint(cell.WebThreads) || rec.Applied.Env["ORDERS_DB_POOL"] != fmt.Sprint(cell.DBPool) {
			t.Errorf("cell %s: read back %v, want ORDERS_WORKERS=%d ORDERS_DB_POOL=%d", cell.ID, rec.Applied.Env, cell.WebThreads, cell.DBPool)
		}
		for _, op := range ordersOps {
			s, ok := rec.Ops[op]
			if !ok || s.Requests == 0 || s.ErrorRate != 0 || s.Skipped != 0 {
				t.Errorf("cell %s: operation %s: %+v (present %v); want requests and 0 %% errors", cell.ID, op, s, ok)
			}
		}
		if len(rec.Ops) != len(ordersOps) || rec.ErrorRate != 0 {
			t.Errorf("cell %s: %d operations, error rate %v; want %d and 0", cell.ID, len(rec.Ops), rec.ErrorRate, len(ordersOps))
		}
		if d := rec.Delivery; d == nil || d.Ratio < sweep.MinDeliveryRatio {
			t.Errorf("cell %s: delivery %+v; want the target pod's counters at %g or more of the bytes sent", cell.ID, d, sweep.MinDeliveryRatio)
		}
		if rec.DB == nil || rec.DB.Sessions.TotalPeak < 1 {
			t.Errorf("cell %s: db block %+v; want the database's sessions sampled", cell.ID, rec.DB)
		}
	}
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), kube.Namespace(meta.RunID), metav1.GetOptions{}); err == nil {
		t.Errorf("namespace %s left after the run", kube.Namespace(meta.RunID))
	}
}

// patientScript is a user's k6 script for the demo: create a Patient,
// read it back. Its own options (10 VUs for a minute) give way to
// sweep's load.
const patientScript = `import http from 'k6/http';
import { check } from 'k6';

export const options = { vus: 10, duration: '1m' };

export default function () {
  const created = http.post(` + "`${__ENV.BASE_URL}/Patient`" + `, JSON.stringify({ resourceType: 'Patient', name: 'k6' }),
    { headers: { 'Content-Type': 'application/json' }, tags: { name: 'create' } });
  check(created, { 'created': (r) => r.status === 201 });
  const id = created.json('id');
  const read = http.get(` + "`${__ENV.BASE_URL}/Patient/${id}`" + `, { tags: { name: 'read' } });
  check(read, { 'read': (r) => r.status === 200 });
}
`

// TestKubernetesK6Job sweeps the demo on the Kubernetes fixture with
// --driver k6 and a user's script: each phase a Job from the k6 image
// (the k6 on this host's PATH packaged by images.sh k6; the test skips
// without one), sweep copied in from the load image, on node 2, the
// target reached by its Service name. Every cell must be ok, recorded as
// k6's with the user's script, its VUs sweep's (the script's own 10
// gave way), the load proved delivered, k6's summary exports of both
// phases kept in the cell's directory as a local k6 leaves them, and the
// run must leave no namespace.
func TestKubernetesK6Job(t *testing.T) {
	testenv.K6(t)
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	root := repoRoot(t)
	var k6Image string
	for _, kv := range testenv.Images(t, root, "k6") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "SWEEP_DEMO_K6_IMAGE" {
			k6Image = v
		}
	}
	if err := fx.LoadImages(root, k6Image); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "patient.js")
	if err := os.WriteFile(script, []byte(patientScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := runCLIEnv(t, fx.Env.With("HOME="+t.TempDir()), "run", "--kubernetes",
		"--manifests", fx.Manifests(t, root, "demo.yaml"), "--service", "app", "--url", "http://app:8080", "--ready-path", "/health",
		"--driver", "k6", "--script", script, "--k6-image", k6Image, "--load-image", fx.DriveImage(t, root),
		"--place", "load=sweep.index=2", "--load", "vus=4",
		"--cpus", "0.5", "--web-mult", "2,4", "--db-mult", "2", "--warmup", "2s", "--duration", "5s",
		"--control-every", "0", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, want 0\nstderr:\n%s", code, stderr)
	}
	meta := readMeta(t, out)
	if len(meta.Cells) != 2 || meta.Host.Driver != "k6" {
		t.Fatalf("%d cells, driver %q; want 2 and k6", len(meta.Cells), meta.Host.Driver)
	}
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		t.Logf("cell %s: %s, %.0f requests/s, p99 %.1f ms, %d requests, %d VUs, load on %+v, the load pod's CPU %+v",
			cell.ID, rec.Status, rec.RPS, rec.LatencyMS.P99, rec.Requests, rec.VUsMax, rec.Measurement.LoadNode, rec.Driver)
		if rec.Status != results.StatusOK || rec.Load.Driver != "k6" || rec.Load.Script == nil || rec.Load.Script.Name != "patient.js" {
			t.Errorf("cell %s: %s (%s), load %+v; want ok, k6 running patient.js", cell.ID, rec.Status, rec.Reason, rec.Load)
			continue
		}
		if rec.Requests == 0 || rec.ErrorRate != 0 || rec.VUsMax != 4 || rec.Measurement.LoadNode == nil || rec.Measurement.LoadNode.ID != fx.Nodes[1].Name {
			t.Errorf("cell %s: %d requests, error rate %v, %d VUs, load on %+v; want 4 VUs' requests without errors from %s",
				cell.ID, rec.Requests, rec.ErrorRate, rec.VUsMax, rec.Measurement.LoadNode, fx.Nodes[1].Name)
		}
		if d := rec.Delivery; d == nil || d.Ratio < sweep.MinDeliveryRatio {
			t.Errorf("cell %s: delivery %+v; want the target pod's counters at %g or more of the bytes sent", cell.ID, d, sweep.MinDeliveryRatio)
		}
		if !strings.HasPrefix(rec.K6Version, "k6 v") {
			t.Errorf("cell %s: k6 version %q, want the Job's k6's", cell.ID, rec.K6Version)
		}
		// the pod's sweep drive and its k6 child, not this process
		if rec.Driver == nil || rec.Driver.CPUPerRequestUS <= 0 {
			t.Errorf("cell %s: driver %+v; want the load pod's CPU per request", cell.ID, rec.Driver)
		}
		dir := results.CellDir(out, cell.ID, 1)
		for _, name := range []string{"driver-summary.json", "warmup-summary.json", "k6.log"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 {
				t.Errorf("cell %s: %s: %v; want k6's file kept", cell.ID, name, err)
			}
		}
	}
	if _, err := fx.Client.Core.CoreV1().Namespaces().Get(t.Context(), kube.Namespace(meta.RunID), metav1.GetOptions{}); err == nil {
		t.Errorf("namespace %s left after the run", kube.Namespace(meta.RunID))
	}
}
