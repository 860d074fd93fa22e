package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/sweep-tool/sweep/metrics"
)

// summary is the part of the kubelet's summary API (/stats/summary,
// k8s.io/kubelet's stats/v1alpha1) sweep reads.
type summary struct {
	Pods []podStats `json:"pods"`
}

// podStats is one pod's entry of the summary: its containers' CPU and
// memory, its network counters.
type podStats struct {
	PodRef struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"podRef"`
	Containers []struct {
		Name string `json:"name"`
		CPU  *struct {
			Time                 time.Time `json:"time"`
			UsageCoreNanoSeconds *uint64   `json:"usageCoreNanoSeconds"`
		} `json:"cpu"`
		Memory *struct {
			WorkingSetBytes *uint64 `json:"workingSetBytes"`
		} `json:"memory"`
	} `json:"containers"`
	Network *struct {
		Time       time.Time `json:"time"`
		Interfaces []struct {
			Name     string  `json:"name"`
			RxBytes  *uint64 `json:"rxBytes"`
			RxErrors *uint64 `json:"rxErrors"`
		} `json:"interfaces"`
		RxBytes *uint64 `json:"rxBytes"`
	} `json:"network"`
}

// Received reads what the target's pod has received over all its
// interfaces, as its node's kubelet last sampled it (the summary API
// through the API server's node proxy), with the sample's time: the
// proof of delivery's counter on Kubernetes (metrics.CountReceived).
// Packets are not in the summary and stay 0.
func (s *Stack) Received(ctx context.Context) (metrics.Counted, error) {
	p, err := s.targetPod(ctx)
	if err != nil {
		return metrics.Counted{}, err
	}
	ps, err := s.podSummary(ctx, p)
	if err != nil {
		return metrics.Counted{}, err
	}
	if ps.Network == nil {
		return metrics.Counted{}, fmt.Errorf("the kubelet of node %s reports no network statistics of pod %s "+
			"(its cAdvisor does not see the runtime's containers, and it does not take pod statistics from the runtime)", p.Spec.NodeName, p.Name)
	}
	var c metrics.Counted
	c.At = ps.Network.Time
	for _, i := range ps.Network.Interfaces {
		if i.RxBytes != nil {
			c.Bytes += int64(*i.RxBytes)
		}
	}
	if len(ps.Network.Interfaces) == 0 && ps.Network.RxBytes != nil {
		c.Bytes = int64(*ps.Network.RxBytes)
	}
	return c, nil
}

// podSummary is pod p's entry of its node's kubelet summary (through the
// API server's node proxy).
func (s *Stack) podSummary(ctx context.Context, p *corev1.Pod) (podStats, error) {
	raw, err := s.c.Core.CoreV1().RESTClient().Get().Resource("nodes").Name(p.Spec.NodeName).
		SubResource("proxy").Suffix("stats/summary").DoRaw(ctx)
	if err != nil {
		return podStats{}, fmt.Errorf("kubelet summary of node %s: %w", p.Spec.NodeName, err)
	}
	var sum summary
	if err := json.Unmarshal(raw, &sum); err != nil {
		return podStats{}, fmt.Errorf("kubelet summary of node %s: %w", p.Spec.NodeName, err)
	}
	for _, ps := range sum.Pods {
		if ps.PodRef.Namespace == s.ns && ps.PodRef.Name == p.Name {
			return ps, nil
		}
	}
	return podStats{}, fmt.Errorf("the kubelet of node %s lists no pod %s yet", p.Spec.NodeName, p.Name)
}
