package kube

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/sweep"
)

// LaneNodes picks n nodes of the cluster for lanes (one namespace each,
// every pod pinned to its node: Options.Lane and PinTo). named, when
// given, are the nodes in order (node names or host names); else the
// usable nodes, those without the control plane's role first, then by
// name. A node is usable when it is Ready, schedulable and carries no
// NoSchedule or NoExecute taint. Too few usable nodes wraps
// sweep.ErrFewNodes, a name that is none of them sweep.ErrNoSuchNode.
func LaneNodes(ctx context.Context, c *Client, named []string, n int) ([]sweep.LaneNode, error) {
	list, err := c.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list nodes: %w", err)
	}
	return pickLaneNodes(list.Items, named, n)
}

func pickLaneNodes(nodes []corev1.Node, named []string, n int) ([]sweep.LaneNode, error) {
	usable := slices.DeleteFunc(slices.Clone(nodes), func(nd corev1.Node) bool { return !laneUsable(&nd) })
	slices.SortFunc(usable, func(a, b corev1.Node) int {
		return cmp.Or(cmp.Compare(controlPlane(&a), controlPlane(&b)), cmp.Compare(a.Name, b.Name))
	})
	lane := func(nd *corev1.Node) sweep.LaneNode {
		return sweep.LaneNode{ID: nd.Name, Hostname: cmp.Or(nd.Labels[corev1.LabelHostname], nd.Name), Addr: internalIP(nd)}
	}
	all := make([]sweep.LaneNode, len(usable))
	for i := range usable {
		all[i] = lane(&usable[i])
	}
	return sweep.PickLaneNodes(all, named, n, "ready and schedulable", func(name string) (sweep.LaneNode, error) {
		i := slices.IndexFunc(all, func(nd sweep.LaneNode) bool { return nd.ID == name || nd.Hostname == name })
		if i < 0 {
			return sweep.LaneNode{}, fmt.Errorf("%w: %q is no ready, schedulable node's name", sweep.ErrNoSuchNode, name)
		}
		return all[i], nil
	})
}

// laneUsable: Ready, schedulable, no taint that keeps a pod off it.
func laneUsable(nd *corev1.Node) bool {
	if nd.Spec.Unschedulable {
		return false
	}
	for _, t := range nd.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return false
		}
	}
	for _, cond := range nd.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// controlPlane is 1 for a node with a control-plane role label, else 0.
func controlPlane(nd *corev1.Node) int {
	for k := range nd.Labels {
		if strings.HasPrefix(k, "node-role.kubernetes.io/control-plane") || strings.HasPrefix(k, "node-role.kubernetes.io/master") {
			return 1
		}
	}
	return 0
}

// internalIP is the node's InternalIP, or its first address.
func internalIP(nd *corev1.Node) string {
	for _, a := range nd.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	if len(nd.Status.Addresses) > 0 {
		return nd.Status.Addresses[0].Address
	}
	return ""
}
