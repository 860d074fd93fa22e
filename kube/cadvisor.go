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

// Usage reads the target container's CPU time and memory working set
// from its node's kubelet summary (nanoseconds: the CPU counter of its
// cAdvisor-format metrics is whole seconds where containerd serves them)
// and its CFS periods and throttling from the kubelet's metrics
// (metrics.ReadUsage: the Kubernetes stack's source of a cell's
// resources). At is the summary's CPU sample time.
func (s *Stack) Usage(ctx context.Context) (metrics.Usage, error) {
	p, err := s.targetPod(ctx)
	if err != nil {
		return metrics.Usage{}, err
	}
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
	var id string
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == s.container {
			id = cs.ContainerID
		}
	}
	if vals, _, err := s.containerMetrics(ctx, p.Spec.NodeName, p.Name, s.container, id); err == nil {
		u.Periods, u.ThrottledPeriods = uint64(vals["container_cpu_cfs_periods_total"]), uint64(vals["container_cpu_cfs_throttled_periods_total"])
		u.ThrottledSeconds = vals["container_cpu_cfs_throttled_seconds_total"]
	}
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
