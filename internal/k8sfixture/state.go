// Package k8sfixture reads the state of sweep's Kubernetes test fixture. The
// fixture itself is fixture.sh in this folder (`make k8s-up`, `make
// k8s-down`): a real cluster built from source, one network namespace per
// node on this one machine. It writes k8s.json into its state directory once
// every node is Ready and CoreDNS serves, and removes it first when it goes
// down, so the file's presence says "up" and its content says where the API
// server, its kubeconfig and each node are. Tests that need the cluster read
// it here (and skip when it is not up).
package k8sfixture

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sweep-tool/sweep/internal/fixturestate"
)

// DefaultDir is where fixture.sh keeps its state unless SWEEP_K8S_DIR names
// another directory.
const DefaultDir = "/var/lib/sweep-k8s"

// StateFile is the name of the state file inside the state directory.
const StateFile = "k8s.json"

// ErrNotUp means the state directory holds no state file: the fixture is
// not up (or is going down).
var ErrNotUp = errors.New("kubernetes fixture is not up")

// State is the fixture as k8s.json describes it.
type State struct {
	// Dir is the fixture's state directory.
	Dir string `json:"dir"`
	// Kubeconfig is the path of a cluster-admin kubeconfig.
	Kubeconfig string `json:"kubeconfig"`
	// Server is the API server's URL.
	Server string `json:"server"`
	// Version is the Kubernetes version the fixture runs.
	Version string `json:"version"`
	// ClusterCIDR is the range pod addresses come from; ServiceCIDR the
	// range of Service cluster IPs; DNS the cluster DNS Service's IP.
	ClusterCIDR string `json:"cluster_cidr"`
	ServiceCIDR string `json:"service_cidr"`
	DNS         string `json:"dns"`
	// ProbeImage is the fixture's client image (probe/main.go), loaded
	// into every node: `/probe sleep`, `/probe http METHOD URL [BODY]`,
	// `/probe lookup NAME`.
	ProbeImage string `json:"probe_image"`
	// Nodes are the cluster's nodes in index order; node 1 also runs the
	// control plane.
	Nodes []Node `json:"nodes"`
}

// Node is one node of the fixture: a network namespace with its own
// containerd, kubelet and kube-proxy. Its label sweep.index is Index.
type Node struct {
	Index int `json:"index"`
	// Name is the Kubernetes node name.
	Name string `json:"name"`
	// Addr is the node's IPv4 address (its InternalIP), reachable from the
	// host.
	Addr string `json:"addr"`
	// Netns is the name of the node's network namespace.
	Netns string `json:"netns"`
	// PodCIDR is the range the node's pods get addresses from; the host
	// routes it to the node.
	PodCIDR      string `json:"pod_cidr"`
	ControlPlane bool   `json:"control_plane"`
}

// Dir returns the state directory: SWEEP_K8S_DIR, or DefaultDir.
func Dir() string { return fixturestate.Dir("SWEEP_K8S_DIR", DefaultDir) }

// Load reads the state file in dir. It returns an error wrapping ErrNotUp
// when there is none, and an error when the file does not describe a
// usable cluster.
func Load(dir string) (State, error) {
	path := filepath.Join(dir, StateFile)
	var s State
	if err := fixturestate.Read(path, ErrNotUp, &s); err != nil {
		return State{}, err
	}
	if s.Kubeconfig == "" || s.Server == "" || len(s.Nodes) == 0 {
		return State{}, fmt.Errorf("read %s: no kubeconfig, server or nodes", path)
	}
	for i, n := range s.Nodes {
		if n.Index != i+1 || n.Name == "" || n.Addr == "" {
			return State{}, fmt.Errorf("read %s: node %d lacks its index, name or address", path, i+1)
		}
	}
	return s, nil
}
