package swarm

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/results"
)

// node is one swarm node as the stack uses it: its names for the record,
// and its own engine when reachable.
type node struct {
	ref    results.NodeInfo
	engine engine.Engine // nil when unreachable
	why    string        // why engine is nil
}

// nodes finds the swarm's nodes and connects to their engines once.
type nodes struct {
	mgr  Manager
	mu   sync.Mutex
	byID map[string]*node
}

func newNodes(mgr Manager) *nodes { return &nodes{mgr: mgr, byID: map[string]*node{}} }

// get returns the node id, listing the swarm's nodes when it is not
// known yet.
func (ns *nodes) get(ctx context.Context, id string) (*node, error) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if n, ok := ns.byID[id]; ok {
		return n, nil
	}
	list, err := ns.mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	self := ""
	if info, err := ns.mgr.Info(ctx); err == nil {
		self = info.Swarm.NodeID
	}
	for _, sn := range list {
		if _, ok := ns.byID[sn.ID]; !ok {
			ns.byID[sn.ID] = ns.connect(ctx, sn, sn.ID == self)
		}
	}
	if n, ok := ns.byID[id]; ok {
		return n, nil
	}
	return nil, fmt.Errorf("node %s is not in the swarm", id)
}

// connect makes the node's entry: its engine from its EngineLabel, or
// the manager's own when it is the manager and the client can serve
// containers.
func (ns *nodes) connect(ctx context.Context, sn swarm.Node, self bool) *node {
	n := &node{ref: results.NodeInfo{ID: sn.ID, Hostname: sn.Description.Hostname}}
	host := sn.Spec.Labels[EngineLabel]
	if host == "" {
		if eng, ok := ns.mgr.(engine.Engine); ok && self {
			n.engine = eng
			return n
		}
		n.why = fmt.Sprintf("node %s has no %s label naming its Docker host", sn.ID, EngineLabel)
		return n
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	eng, err := nodeEngine(cctx, host)
	if err != nil {
		n.why = fmt.Sprintf("node %s: engine %s: %v", sn.ID, host, err)
		return n
	}
	n.engine = eng
	return n
}

// all returns the nodes met so far.
func (ns *nodes) all() []*node {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	out := make([]*node, 0, len(ns.byID))
	for _, n := range ns.byID {
		out = append(out, n)
	}
	return out
}

// NodeAddrs are the addresses the swarm's nodes publish their ports on
// (nodeAddr), for telling whether this host is one of them.
func (s *Stack) NodeAddrs(ctx context.Context) ([]string, error) {
	list, err := s.mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	var addrs []string
	for _, sn := range list {
		if a := nodeAddr(sn); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs, nil
}
