package kube

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// staleLease is how long a kubelet may go without renewing its node's
// Lease before it is named: it renews every 10 s (a quarter of its 40 s
// lease), and the node controller calls the node NotReady after 50 s.
const staleLease = 25 * time.Second

// nodeTrouble says what is wrong with node, as the API server knows it
// (asked within podStateTimeout, also once ctx ended): not Ready (the
// condition's status, reason and message, and since when), or its
// kubelet's Lease not renewed for staleLease; "" when neither, or when
// the API server does not say.
func nodeTrouble(ctx context.Context, c *Client, node string) string {
	if node == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), podStateTimeout)
	defer cancel()
	n, err := c.Core.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	return troubleOf(n, leaseRenewed(ctx, c, node), time.Now())
}

// leaseRenewed is when node's kubelet last renewed its Lease (zero: not
// known).
func leaseRenewed(ctx context.Context, c *Client, node string) time.Time {
	l, err := c.Core.CoordinationV1().Leases("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
	if err != nil || l.Spec.RenewTime == nil {
		return time.Time{}
	}
	return l.Spec.RenewTime.Time
}

// troubleOf is nodeTrouble's verdict on n at now, its Lease renewed at
// renewed.
func troubleOf(n *corev1.Node, renewed, now time.Time) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			return fmt.Sprintf("node %s is not Ready (%s: %s %s) since %s", n.Name, c.Status, c.Reason, c.Message,
				c.LastTransitionTime.UTC().Format(time.TimeOnly))
		}
	}
	if !renewed.IsZero() && now.Sub(renewed) > staleLease {
		return fmt.Sprintf("the kubelet of node %s has not renewed its lease for %.0f s", n.Name, now.Sub(renewed).Seconds())
	}
	return ""
}

// onNode adds what nodeTrouble says of node to err, if anything.
func onNode(ctx context.Context, c *Client, node string, err error) error {
	if t := nodeTrouble(ctx, c, node); t != "" {
		return fmt.Errorf("%w (%s)", err, t)
	}
	return err
}
