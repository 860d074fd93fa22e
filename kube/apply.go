package kube

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/sweep-tool/sweep/sweep"
)

// ensureNamespace creates the run's namespace with its labels; one that
// exists must carry this run's label (a resumed run), else nothing is
// touched.
func (s *Stack) ensureNamespace(ctx context.Context) error {
	ns, err := s.c.Core.CoreV1().Namespaces().Get(ctx, s.ns, metav1.GetOptions{})
	if err == nil {
		if ns.Labels[sweep.LabelRun] != s.opts.RunID {
			return fmt.Errorf("namespace %s exists and is not this run's (label %s=%q): sweep leaves it alone", s.ns, sweep.LabelRun, ns.Labels[sweep.LabelRun])
		}
		if ns.Status.Phase == corev1.NamespaceTerminating {
			return fmt.Errorf("namespace %s is still being deleted; try again when it is gone", s.ns)
		}
		return nil
	}
	if !apierrors.IsNotFound(err) {
		return fmt.Errorf("namespace %s: %w", s.ns, err)
	}
	_, err = s.c.Core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: s.ns, Labels: s.labels, Annotations: s.notes}}, metav1.CreateOptions{FieldManager: FieldManager})
	if err != nil {
		return fmt.Errorf("create namespace %s: %w", s.ns, err)
	}
	// the namespace's default service account comes a moment later;
	// pods are refused until it is there
	return poll(ctx, 30*time.Second, func() (bool, error) {
		_, err := s.c.Core.CoreV1().ServiceAccounts(s.ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	})
}

// apply applies one object into the namespace with the run's labels.
func (s *Stack) apply(ctx context.Context, o Object, u *unstructured.Unstructured) error {
	if u == nil {
		u = o.DeepCopy()
	}
	u.SetNamespace(s.ns)
	u.SetResourceVersion("")
	u.SetUID("")
	u.SetLabels(merge(u.GetLabels(), s.labels))
	u.SetAnnotations(merge(u.GetAnnotations(), s.notes))
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	if s.opts.PinTo != "" {
		pin(u, s.opts.PinTo)
	}
	_, err := s.c.Dyn.Resource(o.Resource).Namespace(s.ns).Apply(ctx, u.GetName(), u,
		metav1.ApplyOptions{FieldManager: FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("apply %s: %w", o.Ref(), err)
	}
	return nil
}

// pin puts the pods of u (a workload's template, or a Pod) on node
// alone: a node selector on its host name replaces the manifests' node
// selector and node affinity (their other scheduling rules stay).
func pin(u *unstructured.Unstructured, node string) {
	path := []string{"spec", "template", "spec"}
	switch u.GetKind() {
	case "Pod":
		path = []string{"spec"}
	case "Deployment", "StatefulSet", "ReplicaSet", "Job":
	default:
		return
	}
	_ = unstructured.SetNestedStringMap(u.Object, map[string]string{corev1.LabelHostname: node}, append(path, "nodeSelector")...)
	unstructured.RemoveNestedField(u.Object, append(path, "affinity", "nodeAffinity")...)
}

func merge(a, b map[string]string) map[string]string {
	if len(b) == 0 {
		return a
	}
	out := make(map[string]string, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// StartDeps creates the namespace and applies every object but the target
// Deployment, Deployments among them with cfg.ServiceEnv, and waits until
// their Deployments and StatefulSets are rolled out and ready.
func (s *Stack) StartDeps(ctx context.Context, cfg sweep.TargetConfig, timeout time.Duration) error {
	if err := s.ensureNamespace(ctx); err != nil {
		return err
	}
	for svc := range cfg.ServiceEnv {
		if !slices.Contains(s.Services(), svc) || svc == s.opts.Service {
			return sweep.BadInput("pool_env", "%q is not another workload of the manifests; workloads: %s", svc, strings.Join(s.Services(), ", "))
		}
	}
	for _, o := range s.objs {
		if o.GetKind() == "Deployment" && o.GetName() == s.opts.Service {
			continue
		}
		u, err := s.withServiceEnv(o, cfg.ServiceEnv[o.GetName()])
		if err != nil {
			return err
		}
		if err := s.apply(ctx, o, u); err != nil {
			return err
		}
		s.serviceEnv[o.GetName()] = cfg.ServiceEnv[o.GetName()]
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, o := range s.objs {
		if o.GetName() == s.opts.Service && o.GetKind() == "Deployment" {
			continue
		}
		if err := s.waitWorkload(wctx, o); err != nil {
			return err
		}
	}
	return nil
}

// withServiceEnv is o with env set on every container of its pod
// template (nil: o unchanged).
func (s *Stack) withServiceEnv(o Object, env map[string]string) (*unstructured.Unstructured, error) {
	if len(env) == 0 {
		return nil, nil
	}
	if o.GetKind() != "Deployment" && o.GetKind() != "StatefulSet" {
		return nil, sweep.BadInput("pool_env", "%s is a %s; sweep sets variables on Deployments and StatefulSets", o.GetName(), o.GetKind())
	}
	u := o.DeepCopy()
	cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	for i := range cs {
		c, _ := cs[i].(map[string]any)
		c["env"] = setEnvList(c["env"], env)
	}
	if err := unstructured.SetNestedSlice(u.Object, cs, "spec", "template", "spec", "containers"); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Ref(), err)
	}
	return u, nil
}

// setEnvList is a container's env list (as decoded YAML) with env's
// variables set, in place where they were, the others after in name order.
func setEnvList(list any, env map[string]string) []any {
	in, _ := list.([]any)
	out := make([]any, 0, len(in)+len(env))
	done := map[string]bool{}
	for _, e := range in {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		if v, ok := env[name]; ok {
			m = map[string]any{"name": name, "value": v}
			done[name] = true
		}
		out = append(out, m)
	}
	for _, k := range sortedKeys(env) {
		if !done[k] {
			out = append(out, map[string]any{"name": k, "value": env[k]})
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Apply rolls the target out with cfg (with Options.InPlace, a cfg that
// differs from the last only in its CPU limit resizes the running pod
// instead: see resize): the container's CPU limit and an
// equal request (so its CPU is its own, not shared above the request),
// the memory limit and request where cfg has one, the swept variables,
// the Recreate strategy (the old pod is gone before the new one starts),
// and cfg's labels as pod annotations. Other Deployments whose variables
// differ from the last Apply's are applied again with theirs.
func (s *Stack) Apply(ctx context.Context, cfg sweep.TargetConfig) error {
	if err := cpusetRefused(cfg); err != nil {
		return err
	}
	s.resizing, s.resized = "", false
	if s.opts.InPlace && s.last != nil && s.noResize == "" && onlyCPU(*s.last, cfg) {
		ok, err := s.resize(ctx, cfg.CPUs)
		if err != nil {
			return err
		}
		if ok {
			s.resized = true
			s.keep(cfg)
			return nil
		}
	}
	if err := s.rollOut(ctx, cfg); err != nil {
		return err
	}
	s.rolledCPUs = cfg.CPUs
	s.keep(cfg)
	return nil
}

// keep remembers cfg as the last configuration applied.
func (s *Stack) keep(cfg sweep.TargetConfig) {
	cfg.Env = maps.Clone(cfg.Env)
	se := make(map[string]map[string]string, len(cfg.ServiceEnv))
	for svc, env := range cfg.ServiceEnv {
		se[svc] = maps.Clone(env)
	}
	cfg.ServiceEnv = se
	s.last = &cfg
}

// rollOut applies cfg as a new pod: other Deployments whose variables
// change rolled out again first, then the target's Deployment.
func (s *Stack) rollOut(ctx context.Context, cfg sweep.TargetConfig) error {
	for _, o := range s.objs {
		if o.GetName() == s.opts.Service || !differ(s.serviceEnv[o.GetName()], cfg.ServiceEnv[o.GetName()]) {
			continue
		}
		u, err := s.withServiceEnv(o, cfg.ServiceEnv[o.GetName()])
		if err != nil {
			return err
		}
		if u == nil {
			u = o.DeepCopy()
		}
		if err := s.recreate(ctx, o, u); err != nil {
			return err
		}
		s.serviceEnv[o.GetName()] = cfg.ServiceEnv[o.GetName()]
	}
	d, err := s.targetFor(cfg)
	if err != nil {
		return err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return fmt.Errorf("deployment %s: %w", s.opts.Service, err)
	}
	if o, ok := s.targetObject(); ok {
		return s.apply(ctx, o, &unstructured.Unstructured{Object: m})
	}
	return fmt.Errorf("deployment %s: not in the manifests", s.opts.Service)
}

// cpusetRefused is the bad input of a cell pinned to host CPUs, which
// Kubernetes does not take; nil for one that is not.
func cpusetRefused(cfg sweep.TargetConfig) error {
	if cfg.CPUSet == "" {
		return nil
	}
	return sweep.BadInput("cpuset", "pinning to host CPUs is not supported on Kubernetes (the kubelet's CPU manager decides)")
}

// recreate applies u (a dependency with new variables) with the Recreate
// strategy when it is a Deployment, and waits for its rollout.
func (s *Stack) recreate(ctx context.Context, o Object, u *unstructured.Unstructured) error {
	if o.GetKind() == "Deployment" {
		_ = unstructured.SetNestedMap(u.Object, map[string]any{"type": "Recreate"}, "spec", "strategy")
	}
	s.applies++
	notes, _, _ := unstructured.NestedStringMap(u.Object, "spec", "template", "metadata", "annotations")
	notes = merge(notes, map[string]string{AnnotationApply: strconv.Itoa(s.applies)})
	_ = unstructured.SetNestedStringMap(u.Object, notes, "spec", "template", "metadata", "annotations")
	if err := s.apply(ctx, o, u); err != nil {
		return err
	}
	return s.waitWorkload(ctx, o)
}

func differ(a, b map[string]string) bool {
	if len(a) != len(b) {
		return true
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return true
		}
	}
	return false
}

// targetFor is the target Deployment as cfg sets it.
func (s *Stack) targetFor(cfg sweep.TargetConfig) (*appsv1.Deployment, error) {
	d := s.target.DeepCopy()
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	one := int32(1)
	d.Spec.Replicas = &one
	s.applies++
	d.Spec.Template.Annotations = merge(d.Spec.Template.Annotations, cfg.Labels)
	d.Spec.Template.Annotations = merge(d.Spec.Template.Annotations, map[string]string{AnnotationApply: strconv.Itoa(s.applies)})
	for i := range d.Spec.Template.Spec.Containers {
		c := &d.Spec.Template.Spec.Containers[i]
		if c.Name != s.container {
			continue
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		if cfg.CPUs > 0 {
			q := *resource.NewMilliQuantity(int64(math.Round(cfg.CPUs*1000)), resource.DecimalSI)
			c.Resources.Limits[corev1.ResourceCPU], c.Resources.Requests[corev1.ResourceCPU] = q, q
		}
		if cfg.Memory != "" {
			b, err := sweep.MemoryBytes(cfg.Memory)
			if err != nil {
				return nil, sweep.BadInput("memory", "%v", err)
			}
			q := *resource.NewQuantity(b, resource.BinarySI)
			c.Resources.Limits[corev1.ResourceMemory], c.Resources.Requests[corev1.ResourceMemory] = q, q
		}
		for _, k := range sortedKeys(cfg.Env) {
			c.Env = setEnv(c.Env, k, cfg.Env[k])
		}
	}
	return d, nil
}

// setEnv sets name to value in env, in place when it is there.
func setEnv(env []corev1.EnvVar, name, value string) []corev1.EnvVar {
	for i := range env {
		if env[i].Name == name {
			env[i] = corev1.EnvVar{Name: name, Value: value}
			return env
		}
	}
	return append(env, corev1.EnvVar{Name: name, Value: value})
}
