package kube

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"

	"github.com/sweep-tool/sweep/metrics"
)

// cgroupCPU is a container's CPU quota and period (µs) as its cgroup
// holds them, read from the kubelet's cAdvisor metrics through the API
// server's node proxy (container_spec_cpu_quota and _period, which
// cAdvisor reads from the cgroup): the limit the kernel enforces, on any
// cluster whose API server proxies to its kubelets. ok is false when the
// kubelet lists no such series (a container without a quota has none).
//
// A series is the container's when its labels name it (namespace, pod,
// container), or, where cAdvisor knows the cgroups but not the runtime's
// containers (it labels nothing then: seen on containerd with cgroup v1),
// when its cgroup path (the id label) ends in a directory named by the
// container's id (cgroupfs: <id>; systemd: cri-containerd-<id>.scope).
func (s *Stack) cgroupCPU(ctx context.Context, node, pod, container, containerID string) (quota, period float64, ok bool, err error) {
	vals, _, err := s.containerMetrics(ctx, node, pod, container, containerID)
	if err != nil {
		return 0, 0, false, err
	}
	q, okQ := vals["container_spec_cpu_quota"]
	p, okP := vals["container_spec_cpu_period"]
	return q, p, okQ && okP && p > 0, nil
}

// containerMetrics reads node's kubelet's cAdvisor metrics (through the
// API server's node proxy) and returns the values of the container's
// series by metric name, and the newest of their timestamps (the time of
// the reading when they carry none). A series is the container's by the
// rule cgroupCPU states.
func (s *Stack) containerMetrics(ctx context.Context, node, pod, container, containerID string) (map[string]float64, time.Time, error) {
	read := time.Now()
	raw, err := s.c.Core.CoreV1().RESTClient().Get().Resource("nodes").Name(node).
		SubResource("proxy").Suffix("metrics/cadvisor").DoRaw(ctx)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("cAdvisor metrics of node %s: %w", node, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("cAdvisor metrics of node %s: %w", node, err)
	}
	_, cid, _ := strings.Cut(containerID, "://")
	vals := map[string]float64{}
	var at time.Time
	for name, f := range families {
		for _, m := range f.GetMetric() {
			byName := label(m, "namespace") == s.ns && label(m, "pod") == pod && label(m, "container") == container
			if !byName && (cid == "" || !strings.Contains(path.Base(label(m, "id")), cid)) {
				continue
			}
			switch {
			case m.Gauge != nil:
				vals[name] = m.GetGauge().GetValue()
			case m.Counter != nil:
				vals[name] = m.GetCounter().GetValue()
			case m.Untyped != nil:
				vals[name] = m.GetUntyped().GetValue()
			}
			if ms := m.GetTimestampMs(); ms > 0 && time.UnixMilli(ms).After(at) {
				at = time.UnixMilli(ms)
			}
			break
		}
	}
	if at.IsZero() {
		at = read
	}
	return vals, at, nil
}

// cfsEvery is how long the CFS counters read from a kubelet's cAdvisor
// metrics (its whole node's, a large answer) serve a phase's readings
// before they are read again: once the counters in hand were sampled
// cfsEvery before the summary's latest CPU sample, each reading reads
// them again until cAdvisor has newer ones (one that refreshes them once
// a housekeeping interval, 10 s and more, gives nothing newer sooner).
// The phase's last reading (fresh) reads them in any case, so the
// phase's totals end with it; its per-second samples get the throttling
// of those seconds in one.
const cfsEvery = 10 * time.Second

// TargetUsage looks the target's pod up once, for one phase
// (metrics.OpenUsage: the Kubernetes stack's source of a cell's
// resources), and returns the reader of its Usage: the container's CPU
// time and memory working set from its node's kubelet summary at every
// reading (nanoseconds: the CPU counter of its cAdvisor-format metrics is
// whole seconds where containerd serves them), its CFS periods and
// throttling from the kubelet's cAdvisor metrics every cfsEvery and at
// the phase's last reading. At is the summary's CPU sample time. A pod
// replaced during the phase is not followed: the stack's watch fails the
// cell, and the old pod's readings fail once its kubelet drops it.
func (s *Stack) TargetUsage(ctx context.Context) (metrics.ReadUsage, error) {
	p, err := s.targetPod(ctx)
	if err != nil {
		return nil, err
	}
	r := &usageReader{s: s, pod: p}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == s.container {
			r.id = cs.ContainerID
		}
	}
	return r.read, nil
}

// usageReader reads one pod's Usage over a phase.
type usageReader struct {
	s   *Stack
	pod *corev1.Pod
	id  string // the container's id (runtime://id), for cAdvisor's series
	// cfs holds the CFS counters last read and, in At, when cAdvisor
	// sampled them (zero: none read yet)
	cfs metrics.Usage
}

func (r *usageReader) read(ctx context.Context, fresh bool) (metrics.Usage, error) {
	s, p := r.s, r.pod
	ps, err := s.podSummary(ctx, p)
	if err != nil {
		return metrics.Usage{}, err
	}
	var u metrics.Usage
	found := false
	for _, c := range ps.Containers {
		if c.Name != s.container || c.CPU == nil || c.CPU.UsageCoreNanoSeconds == nil {
			continue
		}
		u.At, u.CPUSeconds, found = c.CPU.Time, float64(*c.CPU.UsageCoreNanoSeconds)/1e9, true
		if c.Memory != nil && c.Memory.WorkingSetBytes != nil {
			u.MemBytes = *c.Memory.WorkingSetBytes
		}
	}
	if !found {
		return metrics.Usage{}, fmt.Errorf("the kubelet of node %s reports no CPU of pod %s's container %s", p.Spec.NodeName, p.Name, s.container)
	}
	if fresh || r.cfs.At.IsZero() || !u.At.Before(r.cfs.At.Add(cfsEvery)) {
		if vals, at, err := s.containerMetrics(ctx, p.Spec.NodeName, p.Name, s.container, r.id); err == nil {
			r.cfs = metrics.Usage{At: at, Periods: uint64(vals["container_cpu_cfs_periods_total"]),
				ThrottledPeriods: uint64(vals["container_cpu_cfs_throttled_periods_total"]),
				ThrottledSeconds: vals["container_cpu_cfs_throttled_seconds_total"]}
		}
	}
	u.Periods, u.ThrottledPeriods, u.ThrottledSeconds = r.cfs.Periods, r.cfs.ThrottledPeriods, r.cfs.ThrottledSeconds
	return u, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
