package kube

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestStuckPods: a pod the scheduler calls unschedulable ends a wait only
// after unschedulableFor without a break, counted per pod; a pod placed,
// pending for another reason, or terminating never does.
func TestStuckPods(t *testing.T) {
	const msg = "0/2 nodes are available: 2 Insufficient cpu."
	pod := func(name string, f func(p *corev1.Pod)) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: msg}}}}
		if f != nil {
			f(&p)
		}
		return p
	}
	placed := func(p *corev1.Pod) {
		p.Spec.NodeName = "node-1"
		p.Status.Conditions[0] = corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}
	}
	waiting := func(p *corev1.Pod) { p.Status.Conditions[0].Reason = "SchedulingGated" }
	gone := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)} }

	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		name string
		// pods at 0, 5, 10, 15 and 20 s
		at   [5][]corev1.Pod
		fail int // index of the check that fails, -1: none
	}{
		{"unschedulable throughout", [5][]corev1.Pod{{pod("a", nil)}, {pod("a", nil)}, {pod("a", nil)}, {pod("a", nil)}, {pod("a", nil)}}, 3},
		{"placed after 10 s", [5][]corev1.Pod{{pod("a", nil)}, {pod("a", nil)}, {pod("a", placed)}, {pod("a", placed)}, {pod("a", placed)}}, -1},
		{"a break restarts the count", [5][]corev1.Pod{{pod("a", nil)}, {pod("a", nil)}, {}, {pod("a", nil)}, {pod("a", nil)}}, -1},
		{"a new pod counts from its own sighting", [5][]corev1.Pod{{pod("a", nil)}, {pod("a", nil)}, {pod("b", nil)}, {pod("b", nil)}, {pod("b", nil)}}, -1},
		{"pending for another reason", [5][]corev1.Pod{{pod("a", waiting)}, {pod("a", waiting)}, {pod("a", waiting)}, {pod("a", waiting)}, {pod("a", waiting)}}, -1},
		{"terminating", [5][]corev1.Pod{{pod("a", gone)}, {pod("a", gone)}, {pod("a", gone)}, {pod("a", gone)}, {pod("a", gone)}}, -1},
		{"beside a running pod", [5][]corev1.Pod{{pod("r", placed), pod("a", nil)}, {pod("a", nil)}, {pod("a", nil)}, {pod("a", nil), pod("r", placed)}, {pod("a", nil)}}, 3},
	} {
		now := start
		s := stuckPods{now: func() time.Time { return now }}
		failed := -1
		var err error
		for i, pods := range tc.at {
			now = start.Add(time.Duration(i) * 5 * time.Second)
			if err = s.check(pods); err != nil {
				failed = i
				break
			}
		}
		if failed != tc.fail {
			t.Errorf("%s: failed at check %d (%v), want %d", tc.name, failed, err, tc.fail)
			continue
		}
		if err != nil && (!errors.Is(err, ErrUnschedulable) || !strings.Contains(err.Error(), msg) ||
			!strings.Contains(err.Error(), "pod a unschedulable for 15s")) {
			t.Errorf("%s: error %q, want ErrUnschedulable naming pod a, 15s and the scheduler's message", tc.name, err)
		}
	}
}
