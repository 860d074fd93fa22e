package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sweep-tool/sweep/sweep"
)

// TestKubernetesBadInput: what is wrong with a Kubernetes run is exit 2
// naming the flag, within seconds, before anything is applied (no run
// directory made): a Deployment not in the manifests, a kind refused, an
// unreachable cluster, and the flags that do not go with --kubernetes.
func TestKubernetesBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app, err := os.ReadFile("../../kube/testdata/app.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kubeDeployment := string(app)
	man := filepath.Join(dir, "app.yaml")
	if err := os.WriteFile(man, []byte(kubeDeployment+"---\napiVersion: v1\nkind: Service\nmetadata: {name: app}\nspec: {ports: [{port: 8080}]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ns := filepath.Join(dir, "ns.yaml")
	if err := os.WriteFile(ns, []byte(kubeDeployment+"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a kubeconfig whose API server is a closed port of this host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	kc := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kc, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://%s", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: u}}]
current-context: ctx
`, closed)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := sweep.Env{"KUBECONFIG=" + kc, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	base := []string{"run", "--cpus", "1", "--url", "http://app:8080", "--duration", "5s", "--warmup", "0s"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"deployment not in the manifests", []string{"--kubernetes", "--manifests", man, "--service", "web", "--load-image", "d:1"},
			[]string{"--service", `"web" is not a Deployment of the manifests; Deployments: app`}},
		{"kind refused", []string{"--kubernetes", "--manifests", ns, "--service", "app", "--load-image", "d:1"},
			[]string{"--manifests", "Namespace/other", "is not one sweep can keep to the run's namespace"}},
		{"no cluster", []string{"--kubernetes", "--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--kubernetes", "kubernetes cluster unreachable", closed}},
		{"unknown context", []string{"--kubernetes", "--manifests", man, "--service", "app", "--load-image", "d:1", "--kube-context", "prod"},
			[]string{"--kubernetes", `context "prod"`}},
		{"no load image", []string{"--kubernetes", "--manifests", man, "--service", "app"},
			[]string{"--load-image", "runs as a Job in the cluster"}},
		{"manifests without kubernetes", []string{"--manifests", man, "--service", "app"},
			[]string{"--manifests", "give --kubernetes too"}},
		{"in place without kubernetes", []string{"--in-place", "--compose", "x.yaml"},
			[]string{"--in-place", "give --kubernetes too"}},
		{"with swarm", []string{"--kubernetes", "--swarm", "--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--kubernetes", "drop --swarm"}},
		{"lanes and halving", []string{"--kubernetes", "--parallel", "2", "--strategy", "halving", "--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--parallel", "halving"}},
		{"a service placed", []string{"--kubernetes", "--place", "app=node.role==x", "--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--place", "only the load is placed"}},
		{"k6 without its image", []string{"--kubernetes", "--driver", "k6", "--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--k6-image", "k6 runs as a Job in the cluster"}},
		{"a k6 script without the image", []string{"--kubernetes", "--script", man, "--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--k6-image", "k6 runs as a Job in the cluster"}},
		{"k6 image without kubernetes", []string{"--k6-image", "grafana/k6", "--compose", "x.yaml", "--service", "app"},
			[]string{"--k6-image", "give --kubernetes, or --swarm and --place load=CONSTRAINT"}},
		{"k6 image with the built-in driver", []string{"--kubernetes", "--driver", "builtin", "--k6-image", "grafana/k6",
			"--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--k6-image", "drop it with --driver builtin"}},
		{"k6 away with the dashboard", []string{"--kubernetes", "--driver", "k6", "--k6-image", "grafana/k6", "--k6-dashboard",
			"--manifests", man, "--service", "app", "--load-image", "d:1"},
			[]string{"--k6-dashboard", "drop --k6-dashboard with --k6-image"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			start := time.Now()
			code, _, stderr := runCLIEnv(t, env, append(append(append([]string(nil), base...), "--out", out), tc.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if d := time.Since(start); d > 15*time.Second {
				t.Errorf("took %s", d)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the run directory was made (%v)", err)
			}
		})
	}
}
