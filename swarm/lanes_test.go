package swarm

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/docker/docker/api/types/swarm"
	"github.com/sweep-tool/sweep/sweep"
)

// nodesManager lists a fixed set of nodes.
type nodesManager struct {
	fakeManager
	nodes []swarm.Node
}

func (m *nodesManager) NodeList(context.Context, swarm.NodeListOptions) ([]swarm.Node, error) {
	return slices.Clone(m.nodes), nil
}

func laneNode(id, host, addr string, manager bool, state swarm.NodeState, avail swarm.NodeAvailability) swarm.Node {
	n := swarm.Node{ID: id, Description: swarm.NodeDescription{Hostname: host},
		Status: swarm.NodeStatus{State: state, Addr: addr}, Spec: swarm.NodeSpec{Availability: avail}}
	if manager {
		n.ManagerStatus = &swarm.ManagerStatus{Addr: "10.0.0.1:2377"}
	}
	return n
}

func TestLaneNodes(t *testing.T) {
	t.Parallel()
	up, active := swarm.NodeStateReady, swarm.NodeAvailabilityActive
	m := &nodesManager{nodes: []swarm.Node{
		laneNode("m1", "a", "0.0.0.0", true, up, active),
		laneNode("w3", "c", "10.0.0.3", false, up, active),
		laneNode("w2", "b", "10.0.0.2", false, up, active),
		laneNode("down", "d", "10.0.0.4", false, swarm.NodeStateDown, active),
		laneNode("drained", "e", "10.0.0.5", false, up, swarm.NodeAvailabilityDrain),
	}}
	ctx := t.Context()
	got, err := LaneNodes(ctx, m, nil, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids, addrs []string
	for _, n := range got {
		ids, addrs = append(ids, n.ID), append(addrs, n.Addr)
	}
	if !slices.Equal(ids, []string{"w2", "w3", "m1"}) || !slices.Equal(addrs, []string{"10.0.0.2", "10.0.0.3", "10.0.0.1"}) {
		t.Errorf("picked %v at %v; want the workers by host name, then the manager at its manager address", ids, addrs)
	}
	if _, err := LaneNodes(ctx, m, nil, 4); !errors.Is(err, sweep.ErrFewNodes) {
		t.Errorf("4 lanes on 3 usable nodes: %v, want sweep.ErrFewNodes", err)
	}
	got, err = LaneNodes(ctx, m, []string{"c", "m"}, 2)
	if err != nil || got[0].ID != "w3" || got[1].ID != "m1" {
		t.Errorf("named c and m: %+v, %v; want w3 then m1", got, err)
	}
	for _, named := range [][]string{{"drained"}, {"w"}, {"w2", "b"}} {
		if _, err := LaneNodes(ctx, m, named, 1); !errors.Is(err, sweep.ErrNoSuchNode) {
			t.Errorf("named %v: %v, want sweep.ErrNoSuchNode (drained, ambiguous or twice)", named, err)
		}
	}
}
