package swarm

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/docker/docker/api/types/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// LaneNode is a node one lane of cells runs on: every service of the
// lane's stack is pinned to it (Options.PinTo) and the lane's URL and
// DSNs name its Addr (the node's status, for a manager that reports none
// its manager address).
type LaneNode = sweep.LaneNode

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
	lane := func(sn swarm.Node) LaneNode {
		return LaneNode{ID: sn.ID, Hostname: sn.Description.Hostname, Addr: nodeAddr(sn)}
	}
	var all []LaneNode
	for _, sn := range usable {
		all = append(all, lane(sn))
	}
	picked, err := sweep.PickLaneNodes(all, named, n, "ready and active", func(name string) (LaneNode, error) {
		sn, err := findNode(usable, name)
		return lane(sn), err
	})
	if err != nil {
		return nil, err
	}
	for _, nd := range picked {
		if nd.Addr == "" {
			return nil, fmt.Errorf("node %s reports no address", nd.ID)
		}
	}
	return picked, nil
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
		return swarm.Node{}, fmt.Errorf("%w: %q is no ready, active node's id or host name", sweep.ErrNoSuchNode, name)
	}
	return swarm.Node{}, fmt.Errorf("%w: %q names %d nodes; give node ids", sweep.ErrNoSuchNode, name, len(hits))
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
