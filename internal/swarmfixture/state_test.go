package swarmfixture

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadFixtureOutput reads testdata/swarm.json, written by fixture.sh
// up for a 3-node fixture on this machine.
func TestLoadFixtureOutput(t *testing.T) {
	t.Parallel()
	s, err := Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if s.ManagerHost != "unix:///var/lib/sweep-swarm/node1/docker.sock" || len(s.Nodes) != 3 {
		t.Fatalf("manager %q, %d nodes; want node1's socket and 3 nodes", s.ManagerHost, len(s.Nodes))
	}
	want := Node{Index: 3, ID: "aseoekulkvbrwtr83axgl84tk", Addr: "10.77.0.4",
		Host: "unix:///var/lib/sweep-swarm/node3/docker.sock", Netns: "sweepswarm-node3", CPUs: "1", Role: "app"}
	if got, ok := s.ByRole("app"); !ok || got != want {
		t.Errorf("ByRole(app) = %+v, %v; want %+v", got, ok, want)
	}
	if !s.Nodes[0].Manager || s.Nodes[1].Manager {
		t.Errorf("manager flags %v %v, want node 1 only", s.Nodes[0].Manager, s.Nodes[1].Manager)
	}
	if _, ok := s.ByRole("gpu"); ok {
		t.Error("ByRole(gpu) found a node")
	}
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		notUp         bool
	}{
		{name: "no file", notUp: true},
		{name: "not json", content: "export DOCKER_HOST=x\n"},
		{name: "no nodes", content: `{"manager":"unix:///m.sock","nodes":[]}`},
		{name: "no manager", content: `{"nodes":[{"index":1,"id":"a","addr":"10.77.0.2","host":"unix:///a"}]}`},
		{name: "node without address", content: `{"manager":"unix:///m.sock","nodes":[{"index":1,"id":"a","host":"unix:///a"}]}`},
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
				t.Errorf("Load error %q: ErrNotUp %v, want %v", err, !tc.notUp, tc.notUp)
			}
		})
	}
}

func TestDir(t *testing.T) {
	t.Setenv("SWEEP_SWARM_DIR", "")
	if d := Dir(); d != DefaultDir {
		t.Errorf("Dir() = %q without SWEEP_SWARM_DIR, want %q", d, DefaultDir)
	}
	t.Setenv("SWEEP_SWARM_DIR", "/tmp/x")
	if d := Dir(); d != "/tmp/x" {
		t.Errorf("Dir() = %q, want SWEEP_SWARM_DIR's /tmp/x", d)
	}
}
