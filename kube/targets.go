package kube

// The targets of an interleaved group (sweep.Targets) on Kubernetes. Each
// target is a Deployment of its own and a Service of its own, both named
// after its cell (<service>-<cell>, sweep.TargetName): the Deployment is
// the target's as Apply rolls it out for the cell (CPU limit = request,
// memory, the swept variables, the cell's annotations), one replica, with
// sweep.target=<its name> on it, in its selector and on its pods; the
// Service is the copy of the manifests' Service the URL names, selecting
// that one pod (ClusterIP, its node ports dropped). The load reaches each
// target by its Service's name, as it reaches the stack's target by the
// stack's. The stack's own target Deployment is never created on this
// schedule; the manifests' Service of the target stays as the manifests
// have it (it selects every target's pod: the stack's other services do
// not reach one target by it). Everything is in the run's namespace with
// the run's labels: Down, clean and the namespace's deletion remove it.

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/sweep-tool/sweep/metrics"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

var _ sweep.Targets = (*Stack)(nil)

// maxName is the longest name of a Service (a DNS-1035 label).
const maxName = 63

// StartTargets creates one Deployment and one Service per cfg (see
// above) once StartDeps has applied the rest of the manifests, and
// returns the targets in cfgs' order without waiting for them; on an
// error it removes the targets it made. The URL (Options.URL) must name
// a Service of the manifests that selects the target's pods.
func (s *Stack) StartTargets(ctx context.Context, cfgs []sweep.TargetConfig) ([]sweep.Target, error) {
	if len(cfgs) == 0 {
		return nil, nil
	}
	base, err := sweep.TargetBase(s.opts.URL)
	if err != nil {
		return nil, err
	}
	svc, err := s.urlService(base)
	if err != nil {
		return nil, err
	}
	for _, cfg := range cfgs {
		if err := cpusetRefused(cfg); err != nil {
			return nil, err
		}
	}
	if err := s.checkTargetsFit(ctx, cfgs); err != nil {
		return nil, err
	}
	dep, ok := s.targetObject()
	if !ok {
		return nil, fmt.Errorf("deployment %s: not in the manifests", s.opts.Service)
	}
	return sweep.StartEach(ctx, cfgs, func(cfg sweep.TargetConfig) (sweep.Target, error) {
		return s.startCopy(ctx, cfg, base, dep, svc)
	})
}

// targetObject is the manifests' object of the target Deployment.
func (s *Stack) targetObject() (Object, bool) {
	for _, o := range s.objs {
		if o.GetKind() == "Deployment" && o.GetName() == s.opts.Service {
			return o, true
		}
	}
	return Object{}, false
}

// urlService is the manifests' Service the URL names (its host's first
// label), which must select the target's pods: each target gets a copy
// of it.
func (s *Stack) urlService(base *url.URL) (Object, error) {
	name, _, _ := strings.Cut(base.Hostname(), ".")
	pods := labels.Set(s.target.Spec.Template.Labels)
	for _, o := range s.objs {
		if o.GetKind() != "Service" || o.GetName() != name {
			continue
		}
		sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector")
		if len(sel) == 0 || !labels.SelectorFromSet(sel).Matches(pods) {
			return Object{}, sweep.BadInput("url", "Service %s (the URL's host) does not select the pods of Deployment %s; "+
				"an interleaved run gives each target a copy of the Service the URL names, so it must select the target", name, s.opts.Service)
		}
		return o, nil
	}
	return Object{}, sweep.BadInput("url", "%s: %s is not a Service of the manifests; an interleaved run on Kubernetes gives each target a copy "+
		"of the target's Service, so the URL must name it (e.g. http://%s:PORT)", base.Redacted(), name, s.opts.Service)
}

// checkTargetsFit refuses, as bad input before anything is created, a
// group whose targets cannot all be scheduled at once: their CPU
// requests (a cell's CPU limit is also its request) add up to more than
// the schedulable nodes' allocatable CPU together, or their memory limits
// (sweep.CheckTargetsMemory) to more than those nodes' memory. A group
// that fits these sums may still find no node with room for a pod beside
// what runs (the database): that target's wait ends with
// ErrUnschedulable and its slices fail.
func (s *Stack) checkTargetsFit(ctx context.Context, cfgs []sweep.TargetConfig) error {
	l, err := s.c.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("nodes: %w", err)
	}
	var cpu, mem resource.Quantity
	nodes := 0
	for _, n := range l.Items {
		if n.Spec.Unschedulable {
			continue
		}
		nodes++
		cpu.Add(n.Status.Allocatable[corev1.ResourceCPU])
		mem.Add(n.Status.Allocatable[corev1.ResourceMemory])
	}
	var want float64
	for _, cfg := range cfgs {
		want += cfg.CPUs
	}
	if have := float64(cpu.MilliValue()) / 1000; want > have+1e-9 {
		return sweep.BadInput("cpus", "%d targets started at once request %s CPUs together (on Kubernetes a cell's CPU limit is also its request), "+
			"more than the %s CPUs the %d schedulable nodes can give; give fewer cells per CPU limit, or run the sequential schedule",
			len(cfgs), sweep.FormatNumber(want), sweep.FormatNumber(have), nodes)
	}
	var def int64
	for _, c := range s.target.Spec.Template.Spec.Containers {
		if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok && c.Name == s.container {
			def = q.Value()
		}
	}
	return sweep.CheckTargetsMemory(cfgs, def, mem.Value(), fmt.Sprintf("the %d schedulable nodes together", nodes), s.opts.Log, s.opts.Service)
}

// startCopy applies cfg's target Deployment and Service.
func (s *Stack) startCopy(ctx context.Context, cfg sweep.TargetConfig, base *url.URL, dep, svc Object) (*Copy, error) {
	cell := cfg.Labels[sweep.LabelCell]
	name := sweep.TargetName(s.opts.Service+"-"+cell, cell, "-", maxName, true)
	own := map[string]string{sweep.LabelTarget: name}
	d, err := s.targetFor(cfg)
	if err != nil {
		return nil, err
	}
	d.Name = name
	d.Labels = merge(d.Labels, own)
	sel := d.Spec.Selector.DeepCopy()
	sel.MatchLabels = merge(sel.MatchLabels, own)
	d.Spec.Selector = sel
	d.Spec.Template.Labels = merge(d.Spec.Template.Labels, own)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return nil, fmt.Errorf("deployment %s: %w", name, err)
	}
	c := &Copy{view: s.view(name), service: s.opts.Service, cell: cell}
	if err := s.apply(ctx, dep, &unstructured.Unstructured{Object: m}); err != nil {
		return nil, fmt.Errorf("the target of %s: %w", cell, err)
	}
	if err := s.apply(ctx, svc, copyService(svc, name, own)); err != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_ = c.Down(dctx) // its Deployment, made a moment ago
		return nil, fmt.Errorf("the target of %s: %w", cell, err)
	}
	// the URL's host with the Service's name in place of the first label
	u := *base
	_, rest, dotted := strings.Cut(base.Hostname(), ".")
	host := name
	if dotted {
		host += "." + rest
	}
	u.Host = host
	if p := base.Port(); p != "" {
		u.Host = net.JoinHostPort(host, p)
	}
	c.url = u.String()
	return c, nil
}

// copyService is Service svc renamed name, selecting only pods with own's
// labels too, as a ClusterIP Service (a copy of a NodePort or
// LoadBalancer Service would ask for its node ports again).
func copyService(svc Object, name string, own map[string]string) *unstructured.Unstructured {
	u := svc.DeepCopy()
	u.SetName(name)
	u.SetLabels(merge(u.GetLabels(), own))
	sel, _, _ := unstructured.NestedStringMap(u.Object, "spec", "selector")
	_ = unstructured.SetNestedStringMap(u.Object, merge(sel, own), "spec", "selector")
	_ = unstructured.SetNestedField(u.Object, string(corev1.ServiceTypeClusterIP), "spec", "type")
	for _, f := range []string{"clusterIP", "clusterIPs", "externalIPs", "loadBalancerIP", "loadBalancerSourceRanges",
		"externalTrafficPolicy", "healthCheckNodePort", "allocateLoadBalancerNodePorts", "loadBalancerClass"} {
		unstructured.RemoveNestedField(u.Object, "spec", f)
	}
	ports, _, _ := unstructured.NestedSlice(u.Object, "spec", "ports")
	for _, p := range ports {
		if m, ok := p.(map[string]any); ok {
			delete(m, "nodePort")
		}
	}
	_ = unstructured.SetNestedSlice(u.Object, ports, "spec", "ports")
	return u
}

// view is the stack as one target of an interleaved group sees it: its
// Deployment name is the target Deployment (WaitReady, ReadBack, Logs,
// Received, TargetUsage, ProbeURL of its Service read that one), and the
// other targets' pods are no part of it (Watch, the nodes ReadBack
// lists). It shares the stack's client and namespace and is read only.
func (s *Stack) view(name string) *Stack {
	v := *s
	v.opts.Service, v.own = name, name
	v.resizing, v.resized = "", false
	return &v
}

// otherTarget reports whether pod p belongs to a target of an interleaved
// group that is not s's own.
func (s *Stack) otherTarget(p *corev1.Pod) bool {
	t := p.Labels[sweep.LabelTarget]
	return t != "" && t != s.own
}

// Copy is one target of an interleaved group (a sweep.Target): a
// Deployment and a Service of its own.
type Copy struct {
	view    *Stack
	service string // the stack's target's name
	cell    string
	url     string
}

var _ sweep.Target = (*Copy)(nil)

// URL is the base URL at the target's own Service.
func (c *Copy) URL() string { return c.url }

// WaitReady is Stack.WaitReady's, for the target's Deployment.
func (c *Copy) WaitReady(ctx context.Context, timeout time.Duration) error {
	return c.view.WaitReady(ctx, timeout)
}

// ReadBack is Stack.ReadBack's, for the target's pod; its node is
// listed under the stack's target's name.
func (c *Copy) ReadBack(ctx context.Context) (results.Applied, error) {
	a, err := c.view.ReadBack(ctx)
	if n, ok := a.Nodes[c.view.own]; ok {
		delete(a.Nodes, c.view.own)
		a.Nodes[c.service] = n
	}
	return a, err
}

// Logs is Stack.Logs's, for the target's pod.
func (c *Copy) Logs(ctx context.Context, n int) (string, error) { return c.view.Logs(ctx, n) }

// Watch watches the namespace's pods but the other targets': a change of
// another target is not one of this one's.
func (c *Copy) Watch(ctx context.Context) (sweep.StackWatch, error) { return c.view.Watch(ctx) }

// ProbeURL is Stack.ProbeURL's: the target's Service asked through the
// API server (the load reaches it inside the cluster).
func (c *Copy) ProbeURL(ctx context.Context, rawURL string) error {
	return c.view.ProbeURL(ctx, rawURL)
}

// Received is Stack.Received's, for the target's pod (the proof of
// delivery).
func (c *Copy) Received(ctx context.Context) (metrics.Counted, error) { return c.view.Received(ctx) }

// TargetUsage is Stack.TargetUsage's, for the target's pod.
func (c *Copy) TargetUsage(ctx context.Context) (metrics.ReadUsage, error) {
	return c.view.TargetUsage(ctx)
}

// Down deletes the target's Deployment and Service and waits until its
// pods are gone (their CPU request, memory and connections back), within
// ctx.
func (c *Copy) Down(ctx context.Context) error {
	v := c.view
	fg := metav1.DeletePropagationForeground
	opts := metav1.DeleteOptions{PropagationPolicy: &fg}
	err := v.c.Core.AppsV1().Deployments(v.ns).Delete(ctx, v.own, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove the target of %s: deployment %s: %w", c.cell, v.own, err)
	}
	err = v.c.Core.CoreV1().Services(v.ns).Delete(ctx, v.own, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove the target of %s: service %s: %w", c.cell, v.own, err)
	}
	sel := labels.SelectorFromSet(map[string]string{sweep.LabelTarget: v.own}).String()
	err = poll(ctx, 0, func() (bool, error) {
		l, err := v.c.Core.CoreV1().Pods(v.ns).List(ctx, metav1.ListOptions{LabelSelector: sel})
		if err != nil {
			return false, err
		}
		return len(l.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("remove the target of %s: pods of %s not gone: %w", c.cell, v.own, err)
	}
	return nil
}
