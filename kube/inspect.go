package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

// ReadBack reads the target as the cluster runs it: the CPU and memory
// limits and the swept variables from the running pod's spec, checked
// against the resources the kubelet reports it applied
// (status.containerStatuses[].resources, where the cluster reports them),
// the container's id and start, and the node the pod runs on.
func (s *Stack) ReadBack(ctx context.Context) (results.Applied, error) {
	p, err := s.targetPod(ctx)
	if err != nil {
		return results.Applied{}, err
	}
	var c *corev1.Container
	for i := range p.Spec.Containers {
		if p.Spec.Containers[i].Name == s.container {
			c = &p.Spec.Containers[i]
		}
	}
	if c == nil {
		return results.Applied{}, fmt.Errorf("pod %s has no container %s", p.Name, s.container)
	}
	a := results.Applied{Env: map[string]string{}, ReadFrom: "pod spec"}
	lim := c.Resources.Limits
	if q, ok := lim[corev1.ResourceCPU]; ok {
		a.CPUs = float64(q.MilliValue()) / 1000
	}
	if q, ok := lim[corev1.ResourceMemory]; ok {
		a.MemoryBytes = q.Value()
	}
	for _, e := range c.Env {
		if slices.Contains(s.opts.SweptEnv, e.Name) {
			a.Env[e.Name] = e.Value
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name != s.container {
			continue
		}
		a.ContainerID = cs.ContainerID
		if cs.State.Running != nil {
			a.ContainerStartedAt = cs.State.Running.StartedAt.Time
		}
		if cs.Resources != nil {
			if q, ok := cs.Resources.Limits[corev1.ResourceCPU]; ok {
				if got := float64(q.MilliValue()) / 1000; got != a.CPUs {
					return a, fmt.Errorf("pod %s: the kubelet applied a CPU limit of %g, the spec asks %g", p.Name, got, a.CPUs)
				}
				a.ReadFrom = "pod spec and status (kubelet)"
			}
		}
	}
	a.Nodes = s.workloadNodes(ctx)
	a.Nodes[s.opts.Service] = results.NodeInfo{ID: p.Spec.NodeName, Hostname: p.Spec.NodeName}
	a.ResizedInPlace = s.resized
	if s.resized {
		a.TemplateCPUs = s.rolledCPUs
	}
	if a.CPUs > 0 {
		q, per, ok, err := s.cgroupCPU(ctx, p.Spec.NodeName, p.Name, s.container, a.ContainerID)
		switch {
		case err != nil:
			a.ReadFrom += "; cgroup not read: " + err.Error()
		case !ok:
			a.ReadFrom += "; cgroup not read: the kubelet's container metrics (/metrics/cadvisor) have no CPU quota of the container (a kubelet that takes them from the runtime has none)"
		case math.Abs(q/per-a.CPUs) > 0.0005:
			return a, fmt.Errorf("pod %s: its cgroup's CPU quota is %g per %g µs (%.3f CPUs), the spec asks %g", p.Name, q, per, q/per, a.CPUs)
		default:
			a.ReadFrom += fmt.Sprintf("; cgroup quota %g per %g µs (cAdvisor)", q, per)
		}
	}
	return a, nil
}

// workloadNodes names the node each workload's running pod is on (the
// load's Jobs aside); a workload with pods on several nodes is listed
// at one of them. A list that fails leaves the map empty: the target's
// node is read on its own.
func (s *Stack) workloadNodes(ctx context.Context) map[string]results.NodeInfo {
	out := map[string]results.NodeInfo{}
	l, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{LabelSelector: "!" + LabelLoad})
	if err != nil {
		return out
	}
	for i := range l.Items {
		p := &l.Items[i]
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil && p.Spec.NodeName != "" && !s.otherTarget(p) {
			out[workloadOf(p)] = results.NodeInfo{ID: p.Spec.NodeName, Hostname: p.Spec.NodeName}
		}
	}
	return out
}

// Logs returns the last n lines of the target container's log.
func (s *Stack) Logs(ctx context.Context, n int) (string, error) {
	p, err := s.targetPod(ctx)
	if err != nil {
		return "", err
	}
	tail := int64(n)
	b, err := s.c.Core.CoreV1().Pods(s.ns).GetLogs(p.Name, &corev1.PodLogOptions{Container: s.container, TailLines: &tail}).Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("logs of %s: %w", p.Name, err)
	}
	return string(b), nil
}

// NCPU is the most CPUs any schedulable node can give a pod (its
// allocatable CPU, whole cores): a cell's limit above it cannot be
// scheduled.
func (s *Stack) NCPU(ctx context.Context) (int, error) {
	nodes, err := s.c.Core.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("nodes: %w", err)
	}
	best := 0
	for _, n := range nodes.Items {
		if n.Spec.Unschedulable {
			continue
		}
		if q, ok := n.Status.Allocatable[corev1.ResourceCPU]; ok {
			best = max(best, int(q.MilliValue()/1000))
		}
	}
	if best == 0 {
		return 0, fmt.Errorf("no schedulable node reports allocatable CPU")
	}
	return best, nil
}

// Info tells the cluster's facts: the target node's CPUs and container
// runtime, the API server's version, and each workload's image.
func (s *Stack) Info(ctx context.Context) (sweep.StackFacts, error) {
	f := sweep.StackFacts{Tool: "kubernetes (client-go, server-side apply)", Images: map[string]string{}}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if b, err := s.c.Core.Discovery().RESTClient().Get().AbsPath("/version").DoRaw(ctx); err == nil && json.Unmarshal(b, &v) == nil {
		f.ToolVersion = v.GitVersion
	}
	p, err := s.targetPod(ctx)
	if err != nil {
		var ok bool
		if p, ok = s.aTargetsPod(ctx); !ok {
			return f, err
		}
	}
	if n, err := s.c.Core.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{}); err == nil {
		if q, ok := n.Status.Capacity[corev1.ResourceCPU]; ok {
			f.NCPU = int(q.Value())
		}
		f.RuntimeVersion = n.Status.NodeInfo.ContainerRuntimeVersion
	}
	pods, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return f, fmt.Errorf("pods: %w", err)
	}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil {
			continue
		}
		for _, cs := range p.Status.ContainerStatuses {
			f.Images[workloadOf(&p)+"/"+cs.Name] = cs.ImageID
		}
	}
	return f, nil
}

// aTargetsPod is, on an interleaved run (whose targets are Deployments
// of their own, targets.go), the running pod of one of them, if any:
// the node facts Info records are the targets' node's.
func (s *Stack) aTargetsPod(ctx context.Context) (*corev1.Pod, bool) {
	l, err := s.c.Core.CoreV1().Pods(s.ns).List(ctx, metav1.ListOptions{LabelSelector: sweep.LabelTarget})
	if err != nil {
		return nil, false
	}
	for i := range l.Items {
		if p := &l.Items[i]; p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			return p, true
		}
	}
	return nil, false
}

// Containers maps the running workloads to their pods' containers'
// ids: the samplers of a Docker engine cannot read them (the kubelet's
// metrics serve a Kubernetes stack), so it is empty.
func (s *Stack) Containers(ctx context.Context) (map[string]string, error) {
	return map[string]string{}, nil
}

// workloadOf names the workload that owns a pod: its Deployment (through
// the ReplicaSet's name), StatefulSet or the pod itself.
func workloadOf(p *corev1.Pod) string {
	for _, o := range p.OwnerReferences {
		switch o.Kind {
		case "ReplicaSet":
			if h := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]; h != "" {
				return strings.TrimSuffix(o.Name, "-"+h)
			}
			return o.Name
		case "StatefulSet", "Job":
			return o.Name
		}
	}
	return p.Name
}

// ProbeURL sends one GET to url as a pod of the run's namespace would:
// its host must be a Service of the namespace (name, name.namespace or
// name.namespace.svc[.cluster.local]), asked through the API server's
// service proxy at the URL's port and path. Any HTTP answer of the
// target is nil; a host that is no Service of the run, or a Service that
// does not answer, is a *sweep.ProbeError.
func (s *Stack) ProbeURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return &sweep.ProbeError{URL: rawURL, Kind: sweep.ConnectOther, Err: fmt.Errorf("not a URL with a host")}
	}
	parts := strings.Split(u.Hostname(), ".")
	if len(parts) > 1 && parts[1] != s.ns && parts[1] != "svc" {
		return &sweep.ProbeError{URL: rawURL, Kind: sweep.ConnectDNS,
			Err: fmt.Errorf("%s is not a Service of the run's namespace %s: on Kubernetes the load reaches the target by its Service name, e.g. http://%s:PORT", u.Hostname(), s.ns, s.opts.Service)}
	}
	svc := parts[0]
	if _, err := s.c.Core.CoreV1().Services(s.ns).Get(ctx, svc, metav1.GetOptions{}); err != nil && ctx.Err() != nil {
		return fmt.Errorf("service %s: %w", svc, err) // no answer says nothing of the Service
	} else if err != nil {
		return &sweep.ProbeError{URL: rawURL, Kind: sweep.ConnectDNS,
			Err: fmt.Errorf("no Service %s in the run's namespace %s (%v): on Kubernetes the load reaches the target by its Service name", svc, s.ns, err)}
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443"}[u.Scheme]
		if port == "" {
			port = "80"
		}
	}
	pctx, cancel := context.WithTimeout(ctx, sweep.ProbeTimeout)
	defer cancel()
	scheme := u.Scheme
	if scheme == "http" {
		scheme = "" // the proxy's default
	}
	body, err := s.c.Core.CoreV1().Services(s.ns).ProxyGet(scheme, svc, port, u.EscapedPath(), nil).DoRaw(pctx)
	if err == nil {
		return nil
	}
	// the API server's own failures to reach the Service (no endpoint,
	// a port it does not have, a refused connection) are Status objects
	// of its words; any other body is the target's own answer with an
	// error status
	var st metav1.Status
	if json.Unmarshal(body, &st) != nil || st.Kind != "Status" || !proxyFailure(st.Message) {
		if len(body) > 0 {
			return nil
		}
	}
	name := svc + ":" + port
	return &sweep.ProbeError{URL: rawURL, Kind: sweep.ConnectRefused, Err: fmt.Errorf("through the API server's proxy to Service %s: %v", name, err)}
}

// proxyFailure reports whether an API server's Status message says its
// proxy could not reach a Service (rather than relaying its answer).
func proxyFailure(msg string) bool {
	for _, m := range []string{"error trying to reach service", "no endpoints available", "no service port", "not found", "unknown port", "no such port", "connection refused", "dial tcp"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}
