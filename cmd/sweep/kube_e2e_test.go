package main

import (
	"strings"
	"testing"

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
		"--cpus", "0.5,1", "--web-mult", "1,2", "--db-mult", "2", "--load", "vus=8",
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
