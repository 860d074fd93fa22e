package kube

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/sweep"
)

// WaitReady waits until the target's rollout is complete: the Deployment's
// newest generation observed, its one replica updated, ready and
// available, and no other pod of it left (terminating ones included). On
// timeout the error is sweep.ErrNotReady with what the pod waits for.
func (s *Stack) WaitReady(ctx context.Context, timeout time.Duration) error {
	if pod := s.resizing; pod != "" {
		if err := s.waitResized(ctx, pod, timeout); err != nil {
			return err
		}
		s.resizing = ""
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	err := s.waitDeployment(wctx, s.opts.Service)
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("wait for deployment %s: %w", s.opts.Service, err)
	case err != nil && wctx.Err() != nil:
		return fmt.Errorf("%w: deployment %s not ready within %s: %s", sweep.ErrNotReady, s.opts.Service, timeout, s.podTrouble(ctx, s.opts.Service))
	}
	return err
}

// waitWorkload waits for a Deployment's or StatefulSet's rollout, or a
// bare Pod's readiness; other kinds need no wait.
func (s *Stack) waitWorkload(ctx context.Context, o Object) error {
	var err error
	switch o.GetKind() {
	case "Deployment":
		err = s.waitDeployment(ctx, o.GetName())
	case "StatefulSet":
		err = poll(ctx, 0, func() (bool, error) {
			st, err := s.c.Core.AppsV1().StatefulSets(s.ns).Get(ctx, o.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			want := int32(1)
			if st.Spec.Replicas != nil {
				want = *st.Spec.Replicas
			}
			return st.Status.ObservedGeneration >= st.Generation && st.Status.ReadyReplicas == want &&
				st.Status.UpdatedReplicas == want && st.Status.CurrentRevision == st.Status.UpdateRevision, nil
		})
	case "Pod":
		err = poll(ctx, 0, func() (bool, error) {
			p, err := s.c.Core.CoreV1().Pods(s.ns).Get(ctx, o.GetName(), metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return podReady(p) || p.Status.Phase == corev1.PodSucceeded, nil
		})
	default:
		return nil
	}
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %s not ready: %s", sweep.ErrNotReady, o.Ref(), s.podTrouble(ctx, o.GetName()))
	}
	return err
}

// waitDeployment polls Deployment name until its rollout is complete. A
// pod of it the scheduler cannot place for unschedulableFor ends the wait
// with ErrUnschedulable, not the timeout.
func (s *Stack) waitDeployment(ctx context.Context, name string) error {
	stuck := stuckPods{now: time.Now}
	return poll(ctx, 0, func() (bool, error) {
		d, err := s.c.Core.AppsV1().Deployments(s.ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		pods, err := s.podsOf(ctx, d)
		if err != nil {
			return false, err
		}
		if err := stuck.check(pods); err != nil {
			return false, fmt.Errorf("%w: deployment %s: %w", sweep.ErrNotReady, name, err)
		}
		st := d.Status
		if st.ObservedGeneration < d.Generation || st.UpdatedReplicas != want || st.ReadyReplicas != want ||
			st.AvailableReplicas != want || st.Replicas != want {
			return false, nil
		}
		return len(pods) == int(want), nil
	})
}

// ErrUnschedulable means a pod of the stack (or a load Job's) stayed
// unschedulable for unschedulableFor: no node has the CPU or memory it
// requests (a cell's CPU limit, which is also its request, beyond what a
// node has left), or none matches its selectors. The cell fails, as
// after a ready timeout (a stack's wait gives it as a sweep.ErrNotReady),
// but in seconds and with the scheduler's reason.
var ErrUnschedulable = errors.New("pod cannot be scheduled")

// unschedulableFor is how long a pod may stay unschedulable before a wait
// gives it up: long enough for the CPU of a pod that is still terminating
// (the last cell's, a lane's last load Job) to come free, far shorter
// than a ready timeout. A cluster that adds nodes on demand takes longer;
// such a cluster's cells need a node that already fits them.
const unschedulableFor = 15 * time.Second

// stuckPods remembers since when each pod has been unschedulable.
type stuckPods struct {
	now   func() time.Time
	since map[string]time.Time
}

// check returns ErrUnschedulable with the scheduler's message once a pod
// of pods (not terminating) has been unschedulable for unschedulableFor,
// counted from its first sighting by this waiter.
func (s *stuckPods) check(pods []corev1.Pod) error {
	now := s.now()
	seen := map[string]time.Time{}
	for i := range pods {
		p := &pods[i]
		why, ok := unschedulable(p)
		if !ok {
			continue
		}
		t, was := s.since[p.Name]
		if !was {
			t = now
		}
		seen[p.Name] = t
		if now.Sub(t) >= unschedulableFor {
			return fmt.Errorf("%w: pod %s unschedulable for %s: %s", ErrUnschedulable, p.Name, now.Sub(t).Round(time.Second), why)
		}
	}
	s.since = seen
	return nil
}

// unschedulable reports whether the scheduler has said it cannot place
// pod p, and its message (e.g. "0/2 nodes are available: 2 Insufficient
// cpu.").
func unschedulable(p *corev1.Pod) (string, bool) {
	if p.DeletionTimestamp != nil || p.Spec.NodeName != "" {
		return "", false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message, true
		}
	}
	return "", false
}

// podsOf lists Deployment d's pods, terminating ones included.
func (s *Stack) podsOf(ctx context.Context, d *appsv1.Deployment) ([]corev1.Pod, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s: selector: %w", d.Name, err)
	}
	l, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, fmt.Errorf("pods of %s: %w", d.Name, err)
	}
	return l.Items, nil
}

// podTrouble says why the pods of workload name are not ready, from their
// status: waiting reasons, last terminations, unready conditions; it asks
// within 5 s, also once ctx ended (a wait's timeout).
func (s *Stack) podTrouble(ctx context.Context, name string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	l, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "pods: " + err.Error()
	}
	var out []string
	for _, p := range l.Items {
		if !strings.HasPrefix(p.Name, name) {
			continue
		}
		out = append(out, describePod(&p))
	}
	if len(out) == 0 {
		return "no pod"
	}
	return strings.Join(out, "; ")
}

// describePod says in one line where a pod stands.
func describePod(p *corev1.Pod) string {
	var why []string
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			why = append(why, fmt.Sprintf("%s: %s", c.Type, c.Message))
		}
	}
	for _, cs := range p.Status.InitContainerStatuses {
		if t := cs.State.Terminated; t == nil || t.ExitCode != 0 {
			why = append(why, "init "+containerState(cs))
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		switch {
		case cs.State.Waiting != nil || cs.State.Terminated != nil:
			why = append(why, containerState(cs))
		case !cs.Ready:
			why = append(why, cs.Name+" running, not ready")
		}
		if cs.RestartCount > 0 {
			why = append(why, fmt.Sprintf("%s restarted %d times", cs.Name, cs.RestartCount))
		}
	}
	s := fmt.Sprintf("pod %s %s", p.Name, p.Status.Phase)
	if p.DeletionTimestamp != nil {
		s += " (terminating)"
	}
	if len(why) > 0 {
		s += ": " + strings.Join(why, ", ")
	}
	return s
}

// containerState is a container's state, for describePod.
func containerState(cs corev1.ContainerStatus) string {
	switch {
	case cs.State.Waiting != nil:
		return fmt.Sprintf("%s waiting: %s %s", cs.Name, cs.State.Waiting.Reason, cs.State.Waiting.Message)
	case cs.State.Terminated != nil:
		return fmt.Sprintf("%s terminated: %s (exit %d)", cs.Name, cs.State.Terminated.Reason, cs.State.Terminated.ExitCode)
	}
	return cs.Name + " running"
}

func podReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// poll calls f every 250 ms until it says done, fails, or ctx ends
// (timeout > 0 bounds it further).
func poll(ctx context.Context, timeout time.Duration, f func() (bool, error)) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		done, err := f()
		if err != nil && !(ctx.Err() != nil && errors.Is(err, ctx.Err())) {
			return err
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// targetPod is the target's one running pod, not terminating.
func (s *Stack) targetPod(ctx context.Context) (*corev1.Pod, error) {
	d, err := s.c.Core.AppsV1().Deployments(s.ns).Get(ctx, s.opts.Service, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("deployment %s: %w", s.opts.Service, err)
	}
	pods, err := s.podsOf(ctx, d)
	if err != nil {
		return nil, err
	}
	var live []*corev1.Pod
	for i := range pods {
		if pods[i].DeletionTimestamp == nil && pods[i].Status.Phase == corev1.PodRunning {
			live = append(live, &pods[i])
		}
	}
	if len(live) != 1 {
		var all []string
		for i := range pods {
			all = append(all, describePod(&pods[i]))
		}
		return nil, fmt.Errorf("deployment %s: %d running pods, want 1 (%s)", s.opts.Service, len(live), strings.Join(all, "; "))
	}
	return live[0], nil
}
