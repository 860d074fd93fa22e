package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/sweep-tool/sweep/sweep"
)

// onlyCPU reports whether cfg asks for what was applied last except the
// CPU limit: the case an in-place resize serves.
func onlyCPU(last, cfg sweep.TargetConfig) bool {
	return last.CPUs != cfg.CPUs && cfg.CPUs > 0 && last.Memory == cfg.Memory && last.CPUSet == cfg.CPUSet &&
		maps.Equal(last.Env, cfg.Env) && !differ(flat(last.ServiceEnv), flat(cfg.ServiceEnv))
}

// flat is a service → env map as one map, for comparing.
func flat(m map[string]map[string]string) map[string]string {
	out := map[string]string{}
	for svc, env := range m {
		for k, v := range env {
			out[svc+"\x00"+k] = v
		}
	}
	return out
}

// resize sets the target pod's CPU limit and request to cpus through the
// pods/resize subresource (in-place pod resize, Kubernetes 1.33 and
// later): the container keeps running. ok is false when the cluster
// does not offer it (no such subresource, or the feature off): the
// caller rolls out instead.
func (s *Stack) resize(ctx context.Context, cpus float64) (ok bool, err error) {
	p, err := s.targetPod(ctx)
	if err != nil {
		return false, err
	}
	q := resource.NewMilliQuantity(int64(math.Round(cpus*1000)), resource.DecimalSI).String()
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
		"name": s.container, "resources": map[string]any{"limits": map[string]string{"cpu": q}, "requests": map[string]string{"cpu": q}}}}}})
	if err != nil {
		return false, err
	}
	_, err = s.c.Core.CoreV1().Pods(s.ns).Patch(ctx, p.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{FieldManager: FieldManager}, "resize")
	switch {
	case err == nil:
		s.resizing = p.Name
		return true, nil
	case apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err):
		// the API server has no pods/resize (before 1.33, or the feature off)
		s.noResize = fmt.Sprintf("the cluster does not resize pods in place (%v)", err)
		return false, nil
	default:
		return false, fmt.Errorf("resize pod %s to %s CPU: %w", p.Name, q, err)
	}
}

// waitResized waits until the kubelet has applied the resize of pod name:
// no resize pending or in progress, the container's status resources the
// spec's, and the pod ready. A resize the node cannot take (Infeasible)
// is an error at once.
func (s *Stack) waitResized(ctx context.Context, name string, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last string
	err := poll(wctx, 0, func() (bool, error) {
		p, err := s.c.Core.CoreV1().Pods(s.ns).Get(wctx, name, metav1.GetOptions{})
		if err != nil {
			return false, fmt.Errorf("pod %s during its resize: %w", name, err)
		}
		done, why, err := resized(p, s.container)
		last = why
		return done, err
	})
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		return fmt.Errorf("%w: pod %s not resized within %s: %s", sweep.ErrNotReady, name, timeout, last)
	}
	return err
}

// resized judges a pod after a resize: done, or why not yet; an error
// for a resize the node refused.
func resized(p *corev1.Pod, container string) (done bool, why string, err error) {
	if p.DeletionTimestamp != nil {
		return false, "", fmt.Errorf("pod %s is being deleted during its resize", p.Name)
	}
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodResizePending && c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonInfeasible:
			return false, "", fmt.Errorf("pod %s: the node cannot resize it: %s", p.Name, c.Message)
		case (c.Type == corev1.PodResizePending || c.Type == corev1.PodResizeInProgress) && c.Status == corev1.ConditionTrue:
			return false, fmt.Sprintf("%s (%s %s)", c.Type, c.Reason, c.Message), nil
		}
	}
	var spec corev1.ResourceRequirements
	for _, c := range p.Spec.Containers {
		if c.Name == container {
			spec = c.Resources
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != container {
			continue
		}
		if cs.Resources == nil {
			return false, "the kubelet reports no resources of the container yet", nil
		}
		if !cs.Resources.Limits.Cpu().Equal(*spec.Limits.Cpu()) || !cs.Resources.Requests.Cpu().Equal(*spec.Requests.Cpu()) {
			return false, fmt.Sprintf("the kubelet reports %s/%s CPU (limit/request), the spec %s/%s", cs.Resources.Limits.Cpu(),
				cs.Resources.Requests.Cpu(), spec.Limits.Cpu(), spec.Requests.Cpu()), nil
		}
	}
	if !podReady(p) {
		return false, "not ready", nil
	}
	return true, "", nil
}
