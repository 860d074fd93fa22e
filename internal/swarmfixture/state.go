// Package swarmfixture reads the state of sweep's multi-node Docker Swarm
// test fixture. The fixture itself is fixture.sh in this folder (`make
// swarm-up`, `make swarm-down`): extra dockerd processes in network
// namespaces of their own, joined as one swarm on this one machine. It
// writes swarm.json into its state directory once every node is up and
// removes it first when it goes down, so the file's presence says "up"
// and its content says where each node is. Tests reach it through
// testenv.Swarm; later tools (benchmarks) read it here.
package swarmfixture

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/sweep-tool/sweep/internal/fixturestate"
)

// DefaultDir is where fixture.sh keeps its state unless SWEEP_SWARM_DIR
// names another directory.
const DefaultDir = "/var/lib/sweep-swarm"

// StateFile is the name of the state file inside the state directory.
const StateFile = "swarm.json"

// ErrNotUp means the state directory holds no state file: the fixture is
// not up (or is going down).
var ErrNotUp = errors.New("swarm fixture is not up")

// State is the fixture as swarm.json describes it.
type State struct {
	// Dir is the fixture's state directory.
	Dir string `json:"dir"`
	// ManagerHost is the manager's Docker host (unix:///.../docker.sock):
	// the DOCKER_HOST for swarm calls.
	ManagerHost string `json:"manager"`
	// Nodes are the swarm's nodes in index order; node 1 is the manager.
	Nodes []Node `json:"nodes"`
}

// Node is one node of the fixture. All nodes report the machine's
// hostname, so a service is placed by ID (node.id==<ID>) or by the labels
// sweep.index, sweep.cpus and role, never by hostname.
type Node struct {
	// Index is the node's number, 1..N; label sweep.index.
	Index int `json:"index"`
	// ID is the swarm node id.
	ID string `json:"id"`
	// Addr is the node's IPv4 address: swarm traffic goes there, and the
	// host reaches the node's host-mode published ports there.
	Addr string `json:"addr"`
	// Host is the Docker host of the node's own engine.
	Host string `json:"host"`
	// Netns is the name of the node's network namespace.
	Netns string `json:"netns"`
	// CPUs is the CPU list (taskset form, e.g. "1" or "0-1") the node's
	// engine and its containers run on; label sweep.cpus.
	CPUs string `json:"cpus"`
	// Role is the node's role label (load, db, app), or empty.
	Role string `json:"role"`
	// Manager is true for the swarm manager.
	Manager bool `json:"manager"`
}

// Dir returns the state directory: SWEEP_SWARM_DIR, or DefaultDir.
func Dir() string { return fixturestate.Dir("SWEEP_SWARM_DIR", DefaultDir) }

// Load reads the state file in dir. It returns an error wrapping ErrNotUp
// when there is none, and an error when the file does not describe a
// usable swarm.
func Load(dir string) (State, error) {
	path := filepath.Join(dir, StateFile)
	var s State
	if err := fixturestate.Read(path, ErrNotUp, &s); err != nil {
		return State{}, err
	}
	if err := s.check(); err != nil {
		return State{}, fmt.Errorf("read %s: %w", path, err)
	}
	return s, nil
}

// check fails unless s names a manager and every node has an id, an
// address and a Docker host.
func (s State) check() error {
	if s.ManagerHost == "" || len(s.Nodes) == 0 {
		return errors.New("no manager or no nodes")
	}
	for _, n := range s.Nodes {
		if n.ID == "" || n.Addr == "" || n.Host == "" {
			return fmt.Errorf("node %d lacks its id, address or host", n.Index)
		}
	}
	return nil
}

// ByRole returns the first node whose role label is role.
func (s State) ByRole(role string) (Node, bool) {
	for _, n := range s.Nodes {
		if n.Role == role {
			return n, true
		}
	}
	return Node{}, false
}
