package main

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/internal/k8sfixture"
	"github.com/sweep-tool/sweep/kube"
	"github.com/sweep-tool/sweep/results"
)

// TestKubernetesRunEndToEnd sweeps the demo on the Kubernetes fixture as
// a user would: sweep run --kubernetes from the manifests in the repo
// (PostgreSQL on node 2, the app on node 1), four cells, the built-in
// driver as a Job on node 2 reaching the app by its Service name. Every
// cell must be ok, its CPU limit read back from the pod and from its
// cgroup (the kubelet's cAdvisor), its load run on node 2, and the run
// must leave no namespace.
func TestKubernetesRunEndToEnd(t *testing.T) {
	fx := k8sfixture.Up(t)
	if len(fx.Nodes) < 2 {
		t.Skipf("the fixture has %d node; this test needs 2", len(fx.Nodes))
	}
	out := t.TempDir() + "/run"
	code, _, stderr := runCLIEnv(t, fx.Env.With("HOME="+t.TempDir()), "run", "--kubernetes",
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
	for _, cell := range meta.Cells {
		rec := readRecord(t, out, cell.ID)
		a := rec.Applied
		if rec.Status != results.StatusOK || a.CPUs != cell.CPUs || !strings.Contains(a.ReadFrom, "cgroup quota") {
			t.Errorf("cell %s: %s (%s), %v CPUs read from %q; want ok, %v CPUs, the cgroup read", cell.ID, rec.Status, rec.Reason, a.CPUs, a.ReadFrom, cell.CPUs)
		}
		if a.Nodes["app"].ID != fx.Nodes[0].Name || rec.Measurement.LoadNode == nil || rec.Measurement.LoadNode.ID != fx.Nodes[1].Name {
			t.Errorf("cell %s: app on %+v, load on %+v; want %s and %s", cell.ID, a.Nodes["app"], rec.Measurement.LoadNode, fx.Nodes[0].Name, fx.Nodes[1].Name)
		}
		if rec.Measurement.Requests == 0 {
			t.Errorf("cell %s: no request measured", cell.ID)
		}
	}
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
	measuring := func() bool {
		l, err := pods.List(t.Context(), metav1.ListOptions{LabelSelector: kube.LabelLoad + "=measure"})
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
	waitFor(t, p, "the first cell's measured phase", measuring)
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

	waitFor(t, p, "the second cell's measured phase", measuring)
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
