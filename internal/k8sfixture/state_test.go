package k8sfixture

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadFixtureOutput reads testdata/k8s.json, written by fixture.sh up
// for a 2-node fixture on this machine.
func TestLoadFixtureOutput(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if s.Kubeconfig != "/var/lib/sweep-k8s/admin.kubeconfig" || s.Server != "https://10.79.0.2:6443" || len(s.Nodes) != 2 {
		t.Fatalf("kubeconfig %q, server %q, %d nodes; want the default dir's, node 1's and 2", s.Kubeconfig, s.Server, len(s.Nodes))
	}
	want := Node{Index: 2, Name: "sweepk8s-node2", Addr: "10.79.0.3", Netns: "sweepk8s-node2", PodCIDR: "10.244.2.0/24"}
	if s.Nodes[1] != want {
		t.Errorf("node 2 = %+v, want %+v", s.Nodes[1], want)
	}
	if !s.Nodes[0].ControlPlane || s.Nodes[1].ControlPlane {
		t.Errorf("control plane flags %v %v, want node 1 only", s.Nodes[0].ControlPlane, s.Nodes[1].ControlPlane)
	}
	if s.DNS != "10.96.0.10" || s.ProbeImage == "" || s.Version == "" {
		t.Errorf("dns %q, probe image %q, version %q", s.DNS, s.ProbeImage, s.Version)
	}
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		notUp         bool
	}{
		{name: "no file", notUp: true},
		{name: "not json", content: "{"},
		{name: "no nodes", content: `{"kubeconfig":"k","server":"s","nodes":[]}`},
		{name: "no server", content: `{"kubeconfig":"k","nodes":[{"index":1,"name":"n","addr":"a"}]}`},
		{name: "node without address", content: `{"kubeconfig":"k","server":"s","nodes":[{"index":1,"name":"n"}]}`},
		{name: "nodes out of order", content: `{"kubeconfig":"k","server":"s","nodes":[{"index":2,"name":"n","addr":"a"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.content != "" {
				if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(tc.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if errors.Is(err, ErrNotUp) != tc.notUp {
				t.Errorf("errors.Is(%v, ErrNotUp) = %v, want %v", err, !tc.notUp, tc.notUp)
			}
		})
	}
}

func TestDir(t *testing.T) {
	t.Setenv("SWEEP_K8S_DIR", "/tmp/x")
	if Dir() != "/tmp/x" {
		t.Errorf("Dir() = %q with SWEEP_K8S_DIR set", Dir())
	}
	t.Setenv("SWEEP_K8S_DIR", "")
	if Dir() != DefaultDir {
		t.Errorf("Dir() = %q, want %q", Dir(), DefaultDir)
	}
}
