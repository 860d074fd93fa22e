package sweep

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// LaneNode is a node one lane of cells runs on (Lanes): every service of
// the lane's stack is pinned to it. Addr is its address (a swarm's node
// address, a Kubernetes node's InternalIP), which NodePlaceholder stands
// for in the lane's URL and DSNs.
type LaneNode struct {
	ID       string `json:"id"`
	Hostname string `json:"hostname"`
	Addr     string `json:"addr"`
}

// ErrFewNodes: the platform has fewer usable nodes than lanes asked.
var ErrFewNodes = errors.New("not enough nodes for the lanes")

// ErrNoSuchNode: a node named for a lane is not one of the platform's
// usable nodes.
var ErrNoSuchNode = errors.New("no such node")

// PickLaneNodes picks n nodes for lanes from usable, the platform's
// usable nodes in its order of preference (what says which they are, for
// the error): the first n, or with names the nodes find gives for them,
// in order, none twice. Too few usable nodes wraps ErrFewNodes; find's
// errors for a name that is no usable node wrap ErrNoSuchNode.
func PickLaneNodes(usable []LaneNode, named []string, n int, what string, find func(name string) (LaneNode, error)) ([]LaneNode, error) {
	if len(named) == 0 {
		if len(usable) < n {
			return nil, fmt.Errorf("%w: %d lanes, %d %s node(s)", ErrFewNodes, n, len(usable), what)
		}
		return usable[:n], nil
	}
	var picked []LaneNode
	for _, name := range named {
		nd, err := find(name)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(picked, func(p LaneNode) bool { return p.ID == nd.ID }) {
			return nil, fmt.Errorf("%w: %s is named twice: every lane needs a node of its own", ErrNoSuchNode, name)
		}
		picked = append(picked, nd)
	}
	return picked[:min(n, len(picked))], nil
}

// NodePlaceholder stands, in the URL and the DSNs of a spec with
// Parallel, for the address of the node a lane runs on.
const NodePlaceholder = "{node}"

// MaxParallel bounds Parallel.
const MaxParallel = 32

// LaneURL is the URL with the lane node's address in place of
// NodePlaceholder.
func (s Spec) LaneURL(addr string) string { return strings.ReplaceAll(s.URL, NodePlaceholder, addr) }

// ForLane is the spec one lane runs: its URL and DSNs with the lane
// node's address in place of NodePlaceholder.
func (s Spec) ForLane(addr string) Spec {
	s.URL = s.LaneURL(addr)
	s.DBDSN = strings.ReplaceAll(s.DBDSN, NodePlaceholder, addr)
	s.PoolerDSN = strings.ReplaceAll(s.PoolerDSN, NodePlaceholder, addr)
	return s
}

// validateLanes checks Parallel and LaneNodes: lanes need a swarm or a
// Kubernetes cluster, pin every service themselves, cannot share one URL
// or database (on a swarm: {node} in each), and run the grid (not halving's rounds, automatic repetitions, safe-limit
// searches or variants, which decide as they go).
func (s Spec) validateLanes() error {
	hasNode := func(v string) bool { return strings.Contains(v, NodePlaceholder) }
	switch {
	case s.Parallel < 0 || s.Parallel > MaxParallel:
		return BadInput("parallel", "must be from 1 to %d (cells measured at once, one node each)", MaxParallel)
	case s.Parallel == 0 && len(s.LaneNodes) > 0:
		return BadInput("lane_nodes", "names the nodes of the lanes; give {parallel} N too")
	case s.Parallel == 0 && (hasNode(s.URL) || hasNode(s.DBDSN) || hasNode(s.PoolerDSN)):
		return BadInput("parallel", "%s in the URL or a DSN stands for a lane's node address; give {parallel} N (with {swarm})", NodePlaceholder)
	case s.Parallel == 0:
		return nil
	case !s.Swarm && !s.Kubernetes:
		return BadInput("parallel", "runs cells on several nodes at once, of a swarm or a Kubernetes cluster; give {swarm} or {kubernetes} too")
	case len(s.LaneNodes) > 0 && len(s.LaneNodes) < s.Parallel:
		return BadInput("lane_nodes", "names %d node(s) for %d lanes; name one per lane", len(s.LaneNodes), s.Parallel)
	case len(s.StackPlace()) > 0:
		return BadInput("place", "with {parallel} every service of a lane's stack runs on the lane's node; drop the SERVICE=CONSTRAINT entries (load=CONSTRAINT may stay)")
	case s.Strategy == StrategyHalving || s.RepeatAuto || s.FindLimit != nil || len(s.Variants) > 0:
		return BadInput("parallel", "runs the grid's cells side by side; halving, automatic repetitions, the safe-limit search and variants run one stack")
	case s.Kubernetes:
		// a lane is a namespace: its Services have the names the URL
		// and the DSNs give, and no node address is needed
		return nil
	case s.Parallel >= 2 && !hasNode(s.URL):
		return BadInput("url", "with {parallel} %d each lane's target is reached on its own node: write %s where the node's address goes, e.g. http://%s:18080",
			s.Parallel, NodePlaceholder, NodePlaceholder)
	case s.Parallel >= 2 && s.DBDSN != "" && !hasNode(s.DBDSN):
		return BadInput("db_dsn", "with {parallel} %d each lane has its own database: write %s where the node's address goes", s.Parallel, NodePlaceholder)
	case s.Parallel >= 2 && s.PoolerDSN != "" && !hasNode(s.PoolerDSN):
		return BadInput("pooler_dsn", "with {parallel} %d each lane has its own pooler: write %s where the node's address goes", s.Parallel, NodePlaceholder)
	}
	return nil
}
