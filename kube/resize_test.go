package kube

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/sweep"
)

func TestOnlyCPU(t *testing.T) {
	base := sweep.TargetConfig{CPUs: 1, Memory: "512m", Env: map[string]string{"W": "2", "P": "4"},
		ServiceEnv: map[string]map[string]string{"pgbouncer": {"POOL": "4"}}, Labels: map[string]string{"sweep.cell": "a"}}
	with := func(f func(c *sweep.TargetConfig)) sweep.TargetConfig {
		c := base
		c.Env = map[string]string{"W": "2", "P": "4"}
		c.ServiceEnv = map[string]map[string]string{"pgbouncer": {"POOL": "4"}}
		c.Labels = map[string]string{"sweep.cell": "b"}
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  sweep.TargetConfig
		want bool
	}{
		{"the CPU limit alone (another cell's labels)", with(func(c *sweep.TargetConfig) { c.CPUs = 2 }), true},
		{"the same CPU limit", with(func(c *sweep.TargetConfig) {}), false},
		{"no CPU limit", with(func(c *sweep.TargetConfig) { c.CPUs = 0 }), false},
		{"a variable too", with(func(c *sweep.TargetConfig) { c.CPUs, c.Env["W"] = 2, "3" }), false},
		{"a variable more", with(func(c *sweep.TargetConfig) { c.CPUs, c.Env["X"] = 2, "1" }), false},
		{"memory too", with(func(c *sweep.TargetConfig) { c.CPUs, c.Memory = 2, "1g" }), false},
		{"another Deployment's pool too", with(func(c *sweep.TargetConfig) { c.CPUs, c.ServiceEnv["pgbouncer"]["POOL"] = 2, "8" }), false},
	} {
		if got := onlyCPU(base, tc.cfg); got != tc.want {
			t.Errorf("%s: onlyCPU = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestResized(t *testing.T) {
	cpu := func(s string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(s)}
	}
	pod := func(spec, status string, conds ...corev1.PodCondition) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app-1"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		p.Spec.Containers = []corev1.Container{{Name: "sidecar"}, {Name: "app", Resources: corev1.ResourceRequirements{Limits: cpu(spec), Requests: cpu(spec)}}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "sidecar"}, {Name: "app"}}
		if status != "" {
			p.Status.ContainerStatuses[1].Resources = &corev1.ResourceRequirements{Limits: cpu(status), Requests: cpu(status)}
		}
		p.Status.Conditions = append(conds, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue})
		return p
	}
	cond := func(t corev1.PodConditionType, reason string) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: "node has 2 CPUs"}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		done bool
		why  string
		err  string
	}{
		{"applied", pod("1", "1000m"), true, "", ""},
		{"the kubelet still at the old limit", pod("1", "500m"), false, "the kubelet reports 500m/500m CPU (limit/request), the spec 1/1", ""},
		{"no status resources yet", pod("1", ""), false, "no resources", ""},
		{"in progress", pod("1", "1", cond(corev1.PodResizeInProgress, "")), false, "PodResizeInProgress", ""},
		{"deferred", pod("1", "500m", cond(corev1.PodResizePending, corev1.PodReasonDeferred)), false, "Deferred", ""},
		{"infeasible", pod("4", "500m", cond(corev1.PodResizePending, corev1.PodReasonInfeasible)), false, "", "cannot resize it: node has 2 CPUs"},
	} {
		done, why, err := resized(tc.pod, "app")
		if done != tc.done || !strings.Contains(why, tc.why) || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: resized = %v, %q, %v; want %v, %q…, error %q…", tc.name, done, why, err, tc.done, tc.why, tc.err)
		}
	}
	notReady := pod("1", "1")
	notReady.Status.Conditions = nil
	if done, why, _ := resized(notReady, "app"); done || why != "not ready" {
		t.Errorf("a pod not ready: %v, %q; want not done, not ready", done, why)
	}
}
