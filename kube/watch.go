package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// podWatch is a sweep.StackWatch over the pods of the run's namespace: a
// container that restarts or ends, a pod deleted, evicted or replaced (a
// new pod is a rescheduled or replaced one) is a change.
type podWatch struct {
	target  string
	other   func(*corev1.Pod) bool // another target's pod: not watched
	w       watch.Interface
	mu      sync.Mutex
	seen    map[types.UID]podState
	events  []results.StackEvent
	changed chan struct{}
	once    sync.Once
	done    chan struct{}
	broke   error
}

// podState is what the watch compares: restarts per container, whether
// the pod is going away.
type podState struct {
	restarts map[string]int32
	ending   bool
}

// Watch lists the namespace's pods and watches them from that list on.
func (s *Stack) Watch(ctx context.Context) (sweep.StackWatch, error) {
	l, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("watch pods of %s: %w", s.ns, err)
	}
	// the watch lives in ctx until Stop: ctx bounds its opening too
	w, err := s.c.Core.CoreV1().Pods(s.ns).Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion})
	if err != nil {
		return nil, fmt.Errorf("watch pods of %s: %w", s.ns, err)
	}
	pw := &podWatch{target: s.opts.Service, other: s.otherTarget, w: w, seen: map[types.UID]podState{},
		changed: make(chan struct{}), done: make(chan struct{})}
	for i := range l.Items {
		p := &l.Items[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Labels[LabelLoad] != "" || s.otherTarget(p) {
			continue // a finished Job's pod, the load's, or another target's
		}
		pw.seen[p.UID] = stateOf(p)
	}
	go pw.loop()
	return pw, nil
}

func stateOf(p *corev1.Pod) podState {
	st := podState{restarts: map[string]int32{}, ending: p.DeletionTimestamp != nil}
	for _, cs := range p.Status.ContainerStatuses {
		st.restarts[cs.Name] = cs.RestartCount
	}
	return st
}

func (pw *podWatch) loop() {
	defer close(pw.done)
	for ev := range pw.w.ResultChan() {
		switch ev.Type {
		case watch.Error:
			pw.mu.Lock()
			pw.broke = fmt.Errorf("pod watch: %v", ev.Object)
			pw.mu.Unlock()
			pw.fire()
			return
		case watch.Bookmark:
			continue
		}
		p, ok := ev.Object.(*corev1.Pod)
		if !ok {
			continue
		}
		pw.see(ev.Type, p)
	}
	// the channel closed: Stop, or the API server ended the watch
	pw.mu.Lock()
	if pw.broke == nil {
		pw.broke = errWatchEnded
	}
	pw.mu.Unlock()
}

var errWatchEnded = fmt.Errorf("pod watch ended")

// see compares one pod's event with what the watch knew of it.
func (pw *podWatch) see(t watch.EventType, p *corev1.Pod) {
	if p.Labels[LabelLoad] != "" || pw.other != nil && pw.other(p) {
		return // the load's own Job pods come and go with each phase; another target's are no part of this one's stack
	}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	svc := workloadOf(p)
	add := func(action, detail string) {
		pw.events = append(pw.events, results.StackEvent{Service: svc, Target: svc == pw.target,
			Action: action, Detail: detail, At: time.Now()})
		pw.fire()
	}
	old, known := pw.seen[p.UID]
	now := stateOf(p)
	pw.seen[p.UID] = now
	switch {
	case t == watch.Deleted:
		if !old.ending {
			add("gone", "pod "+p.Name+" deleted")
		}
		return
	case !known:
		if p.Status.Phase != corev1.PodSucceeded {
			add("appeared", fmt.Sprintf("pod %s on node %q", p.Name, p.Spec.NodeName))
		}
		return
	case now.ending && !old.ending:
		add("destroy", "pod "+p.Name+" is being deleted")
	case p.Status.Reason == "Evicted":
		add("evicted", p.Status.Message)
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.RestartCount <= old.restarts[cs.Name] {
			continue
		}
		action, detail := "restart", fmt.Sprintf("container %s of pod %s, restart %d", cs.Name, p.Name, cs.RestartCount)
		if term := cs.LastTerminationState.Terminated; term != nil {
			detail += fmt.Sprintf(": %s, exit code %d", term.Reason, term.ExitCode)
			if term.Reason == "OOMKilled" {
				action = "oom"
			}
		}
		add(action, detail)
	}
}

func (pw *podWatch) fire() { pw.once.Do(func() { close(pw.changed) }) }

// Changed is closed at the first change.
func (pw *podWatch) Changed() <-chan struct{} { return pw.changed }

// Stop ends the watch and returns the changes seen; an error when the
// watch ended before Stop (the API server closed it), since the stack may
// then have changed unseen.
func (pw *podWatch) Stop(ctx context.Context) ([]results.StackEvent, error) {
	pw.mu.Lock()
	broke := pw.broke
	pw.mu.Unlock()
	pw.w.Stop()
	select {
	case <-pw.done:
	case <-ctx.Done():
	}
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return append([]results.StackEvent(nil), pw.events...), broke
}
