package kube

import (
	"errors"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// TestNodeTrouble: an error of a call that went through a node's kubelet
// names the node when the API server calls it not Ready, or when its
// kubelet has not renewed its lease for a while (before the node
// controller's grace has passed); a Ready node with a fresh lease adds
// nothing.
func TestNodeTrouble(t *testing.T) {
	now := time.Now()
	node := func(name string, ready corev1.ConditionStatus) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{
			Type: corev1.NodeReady, Status: ready, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.",
			LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}}}
	}
	lease := func(name string, renewed time.Time) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-node-lease"},
			Spec: coordinationv1.LeaseSpec{RenewTime: &metav1.MicroTime{Time: renewed}}}
	}
	cs := fake.NewClientset(node("gone", corev1.ConditionUnknown), lease("gone", now.Add(-90*time.Second)),
		node("stalled", corev1.ConditionTrue), lease("stalled", now.Add(-40*time.Second)),
		node("fine", corev1.ConditionTrue), lease("fine", now.Add(-5*time.Second)))
	c := &Client{Core: cs}
	cause := errors.New("job load-1 on node x: load service gave no result in time")
	for name, want := range map[string]string{
		"gone":    "(node gone is not Ready (Unknown: NodeStatusUnknown Kubelet stopped posting node status.) since ",
		"stalled": "(the kubelet of node stalled has not renewed its lease for 4",
		"fine":    "",
		"absent":  "",
	} {
		err := onNode(t.Context(), c, name, cause)
		if !errors.Is(err, cause) || (want == "") != (err.Error() == cause.Error()) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want the cause with %q", name, err, want)
		}
	}
}
