package kube

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
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
	raw, err := s.c.Core.CoreV1().RESTClient().Get().Resource("nodes").Name(node).
		SubResource("proxy").Suffix("metrics/cadvisor").DoRaw(ctx)
	if err != nil {
		return 0, 0, false, fmt.Errorf("cAdvisor metrics of node %s: %w", node, err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(raw))
	if err != nil {
		return 0, 0, false, fmt.Errorf("cAdvisor metrics of node %s: %w", node, err)
	}
	_, cid, _ := strings.Cut(containerID, "://")
	find := func(name string) (float64, bool) {
		f := families[name]
		if f == nil {
			return 0, false
		}
		for _, m := range f.GetMetric() {
			byName := label(m, "namespace") == s.ns && label(m, "pod") == pod && label(m, "container") == container
			if byName || (cid != "" && strings.Contains(path.Base(label(m, "id")), cid)) {
				return m.GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	q, okQ := find("container_spec_cpu_quota")
	p, okP := find("container_spec_cpu_period")
	return q, p, okQ && okP && p > 0, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
