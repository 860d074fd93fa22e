package swarm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/swarm"
)

// LaneNode is a node one lane of cells runs on (sweep.Lanes): every
// service of the lane's stack is pinned to it (Options.PinTo) and the
// lane's URL and DSNs name its Addr.
type LaneNode struct {
	ID       string `json:"id"`
	Hostname string `json:"hostname"`
	// Addr is the node's address as the swarm knows it (the node's
	// status, for a manager that reports none its manager address).
	Addr string `json:"addr"`
}

// ErrFewNodes: the swarm has fewer usable nodes than lanes asked.
var ErrFewNodes = errors.New("not enough swarm nodes for the lanes")

// ErrNoSuchNode: a node named for a lane is not one of the swarm's
// usable nodes.
var ErrNoSuchNode = errors.New("no such swarm node")

// LaneNodes picks n nodes for lanes. named, when given, are the nodes in
// order (an id, a unique id prefix or a unique host name each); else the
// swarm's ready, active nodes, workers before managers, then by host
// name and id. A node that is down, drained or paused is never picked.
func LaneNodes(ctx context.Context, mgr Manager, named []string, n int) ([]LaneNode, error) {
	list, err := mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	usable := slices.DeleteFunc(list, func(sn swarm.Node) bool {
		return sn.Status.State != swarm.NodeStateReady || sn.Spec.Availability != swarm.NodeAvailabilityActive
	})
	slices.SortFunc(usable, func(a, b swarm.Node) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a.Description.Hostname, b.Description.Hostname), cmp.Compare(a.ID, b.ID))
	})
	var picked []swarm.Node
	if len(named) == 0 {
		if len(usable) < n {
			return nil, fmt.Errorf("%w: %d lanes, %d ready and active node(s)", ErrFewNodes, n, len(usable))
		}
		picked = usable[:n]
	}
	for _, name := range named {
		sn, err := findNode(usable, name)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(picked, func(p swarm.Node) bool { return p.ID == sn.ID }) {
			return nil, fmt.Errorf("%w: %s is named twice: every lane needs a node of its own", ErrNoSuchNode, name)
		}
		picked = append(picked, sn)
	}
	out := make([]LaneNode, 0, n)
	for _, sn := range picked[:min(n, len(picked))] {
		addr := nodeAddr(sn)
		if addr == "" {
			return nil, fmt.Errorf("node %s reports no address", sn.ID)
		}
		out = append(out, LaneNode{ID: sn.ID, Hostname: sn.Description.Hostname, Addr: addr})
	}
	return out, nil
}

// rank puts workers first: a manager also carries the swarm's control
// work.
func rank(sn swarm.Node) int {
	if sn.ManagerStatus != nil {
		return 1
	}
	return 0
}

// findNode is the usable node with the id, unique id prefix or unique
// host name name.
func findNode(nodes []swarm.Node, name string) (swarm.Node, error) {
	var hits []swarm.Node
	for _, sn := range nodes {
		if sn.ID == name {
			return sn, nil
		}
		if strings.HasPrefix(sn.ID, name) || sn.Description.Hostname == name {
			hits = append(hits, sn)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return swarm.Node{}, fmt.Errorf("%w: %q is no ready, active node's id or host name", ErrNoSuchNode, name)
	}
	return swarm.Node{}, fmt.Errorf("%w: %q names %d nodes; give node ids", ErrNoSuchNode, name, len(hits))
}

// nodeAddr is the address a node publishes its host-mode ports on.
func nodeAddr(sn swarm.Node) string {
	if a := sn.Status.Addr; a != "" && a != "0.0.0.0" {
		return a
	}
	if sn.ManagerStatus != nil {
		if h, _, err := net.SplitHostPort(sn.ManagerStatus.Addr); err == nil && h != "0.0.0.0" {
			return h
		}
	}
	return ""
}
