package kube

import (
	"errors"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/sweep-tool/sweep/sweep"
)

func TestPickLaneNodes(t *testing.T) {
	node := func(name string, ready bool, f func(*corev1.Node)) corev1.Node {
		st := corev1.ConditionFalse
		if ready {
			st = corev1.ConditionTrue
		}
		n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name + "-host"}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}},
				Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalIP, Address: "10.0.0." + name[len(name)-1:]}}}}
		if f != nil {
			f(&n)
		}
		return n
	}
	nodes := []corev1.Node{
		node("n1", true, func(n *corev1.Node) { n.Labels["node-role.kubernetes.io/control-plane"] = "" }),
		node("n4", true, nil),
		node("n2", true, nil),
		node("n3", false, nil),
		node("n5", true, func(n *corev1.Node) { n.Spec.Unschedulable = true }),
		node("n6", true, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "gpu", Effect: corev1.TaintEffectNoSchedule}}
		}),
		node("n7", true, func(n *corev1.Node) {
			n.Spec.Taints = []corev1.Taint{{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}}
		}),
	}
	ids := func(l []sweep.LaneNode) []string {
		var out []string
		for _, n := range l {
			out = append(out, n.ID)
		}
		return out
	}
	got, err := pickLaneNodes(nodes, nil, 4)
	if err != nil || !reflect.DeepEqual(ids(got), []string{"n2", "n4", "n7", "n1"}) {
		t.Errorf("4 lanes: %v, %v; want the usable workers by name, then the control plane", ids(got), err)
	}
	if got[0].Hostname != "n2-host" || got[0].Addr != "10.0.0.2" {
		t.Errorf("lane node %+v: want the host name label and the InternalIP", got[0])
	}
	if _, err := pickLaneNodes(nodes, nil, 5); !errors.Is(err, sweep.ErrFewNodes) {
		t.Errorf("5 lanes on 4 usable nodes: %v, want ErrFewNodes", err)
	}
	if got, err := pickLaneNodes(nodes, []string{"n1", "n4-host"}, 2); err != nil || !reflect.DeepEqual(ids(got), []string{"n1", "n4"}) {
		t.Errorf("named n1, n4-host: %v, %v; want n1, n4 in that order", ids(got), err)
	}
	for _, named := range [][]string{{"n3"}, {"n5"}, {"n6"}, {"n9"}, {"n2", "n2-host"}} {
		if _, err := pickLaneNodes(nodes, named, len(named)); !errors.Is(err, sweep.ErrNoSuchNode) {
			t.Errorf("named %v: %v, want ErrNoSuchNode (not ready, cordoned, tainted, unknown, twice)", named, err)
		}
	}
}

func TestPin(t *testing.T) {
	dep := &unstructured.Unstructured{Object: map[string]any{"kind": "Deployment", "spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"nodeSelector": map[string]any{"sweep.index": "2"},
		"affinity":     map[string]any{"nodeAffinity": map[string]any{"x": "y"}, "podAntiAffinity": map[string]any{"a": "b"}},
	}}}}}
	pin(dep, "node1")
	spec, _, _ := unstructured.NestedMap(dep.Object, "spec", "template", "spec")
	want := map[string]any{"nodeSelector": map[string]any{corev1.LabelHostname: "node1"}, "affinity": map[string]any{"podAntiAffinity": map[string]any{"a": "b"}}}
	if !reflect.DeepEqual(spec, want) {
		t.Errorf("pinned Deployment's pod spec %v, want %v", spec, want)
	}
	pod := &unstructured.Unstructured{Object: map[string]any{"kind": "Pod", "spec": map[string]any{}}}
	pin(pod, "node2")
	if sel, _, _ := unstructured.NestedStringMap(pod.Object, "spec", "nodeSelector"); sel[corev1.LabelHostname] != "node2" {
		t.Errorf("pinned Pod's node selector %v", sel)
	}
	svc := &unstructured.Unstructured{Object: map[string]any{"kind": "Service", "spec": map[string]any{}}}
	pin(svc, "node1")
	if spec, _, _ := unstructured.NestedMap(svc.Object, "spec"); len(spec) != 0 {
		t.Errorf("a Service was changed: %v", spec)
	}
}
