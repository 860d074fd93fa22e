package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

func pod(uid, name, rs string, restarts int32) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Name: name, Labels: map[string]string{"pod-template-hash": "abc"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs + "-abc"}}},
		Spec:   corev1.PodSpec{NodeName: "node1"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "c", RestartCount: restarts}}},
	}
}

// TestPodWatchSees: what the watch makes of each pod event: the same pod
// unchanged is nothing; a restart (an OOM kill named as such), the pod
// going, its deletion, an eviction and a new pod are changes, each once,
// the target's marked.
func TestPodWatchSees(t *testing.T) {
	pw := &podWatch{target: "app", seen: map[types.UID]podState{}, changed: make(chan struct{})}
	app, db := pod("1", "app-abc-x", "app", 0), pod("2", "db-abc-y", "db", 0)
	pw.seen[app.UID], pw.seen[db.UID] = stateOf(app), stateOf(db)

	pw.see(watch.Modified, app.DeepCopy())
	if len(pw.events) != 0 {
		t.Fatalf("an unchanged pod gave %+v", pw.events)
	}
	select {
	case <-pw.Changed():
		t.Fatal("changed without a change")
	default:
	}
	oom := db.DeepCopy()
	oom.Status.ContainerStatuses[0].RestartCount = 1
	oom.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{Reason: "OOMKilled", ExitCode: 137}
	pw.see(watch.Modified, oom)
	pw.see(watch.Modified, oom.DeepCopy()) // the same restart seen again
	gone := app.DeepCopy()
	gone.DeletionTimestamp = &metav1.Time{}
	pw.see(watch.Modified, gone)
	pw.see(watch.Deleted, gone.DeepCopy())
	pw.see(watch.Added, pod("3", "app-abc-z", "app", 0))
	load := pod("9", "sweep-load-1-x", "sweep-load-1", 0)
	load.Labels[LabelLoad] = "measure"
	pw.see(watch.Added, load) // the load's Job pod: not a change of the stack
	ev := pod("2", "db-abc-y", "db", 1)
	ev.Status.Reason, ev.Status.Message = "Evicted", "the node was low on memory"
	pw.see(watch.Modified, ev)

	var got []string
	for _, e := range pw.events {
		got = append(got, e.Service+" "+e.Action+map[bool]string{true: " (target)"}[e.Target])
	}
	want := "db oom, app destroy (target), app appeared (target), db evicted"
	if strings.Join(got, ", ") != want {
		t.Errorf("events %q, want %q", strings.Join(got, ", "), want)
	}
	if !strings.Contains(pw.events[0].Detail, "OOMKilled, exit code 137") {
		t.Errorf("the OOM kill's detail: %q", pw.events[0].Detail)
	}
	select {
	case <-pw.Changed():
	default:
		t.Error("Changed not closed after changes")
	}
}

func TestWorkloadOf(t *testing.T) {
	for _, tc := range []struct {
		p    *corev1.Pod
		want string
	}{
		{pod("1", "app-7d9f-x", "app", 0), "app"},
		{&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pg-0", OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "pg"}}}}, "pg"},
		{&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "client"}}, "client"},
	} {
		if got := workloadOf(tc.p); got != tc.want {
			t.Errorf("workloadOf(%s) = %q, want %q", tc.p.Name, got, tc.want)
		}
	}
}

// TestProxyFailure: the API server's own words for a Service it cannot
// reach, as the fixture's API server said them, are failures; a target's
// body is not.
func TestProxyFailure(t *testing.T) {
	for msg, want := range map[string]bool{
		`no service port 9999 found for service "app"`:                                         true,
		`no endpoints available for service "app"`:                                             true,
		`error trying to reach service: dial tcp 10.244.1.5:8080: connect: connection refused`: true,
		`services "nope" not found`:                                                            true,
		`Not Found`:                                                                            false,
		`{"error":"no such patient"}`:                                                          false,
	} {
		if got := proxyFailure(msg); got != want {
			t.Errorf("proxyFailure(%q) = %v, want %v", msg, got, want)
		}
	}
}
