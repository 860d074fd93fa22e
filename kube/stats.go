package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sweep-tool/sweep/metrics"
)

// summary is the part of the kubelet's summary API (/stats/summary,
// k8s.io/kubelet's stats/v1alpha1) sweep reads.
type summary struct {
	Pods []struct {
		PodRef struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"podRef"`
		Network *struct {
			Time       time.Time `json:"time"`
			Interfaces []struct {
				Name     string  `json:"name"`
				RxBytes  *uint64 `json:"rxBytes"`
				RxErrors *uint64 `json:"rxErrors"`
			} `json:"interfaces"`
			RxBytes *uint64 `json:"rxBytes"`
		} `json:"network"`
	} `json:"pods"`
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
	raw, err := s.c.Core.CoreV1().RESTClient().Get().Resource("nodes").Name(p.Spec.NodeName).
		SubResource("proxy").Suffix("stats/summary").DoRaw(ctx)
	if err != nil {
		return metrics.Counted{}, fmt.Errorf("kubelet summary of node %s: %w", p.Spec.NodeName, err)
	}
	var sum summary
	if err := json.Unmarshal(raw, &sum); err != nil {
		return metrics.Counted{}, fmt.Errorf("kubelet summary of node %s: %w", p.Spec.NodeName, err)
	}
	for _, ps := range sum.Pods {
		if ps.PodRef.Namespace != s.ns || ps.PodRef.Name != p.Name {
			continue
		}
		if ps.Network == nil {
			return metrics.Counted{}, fmt.Errorf("the kubelet of node %s reports no network statistics of pod %s "+
				"(its cAdvisor does not see the runtime's containers, as on sweep's test fixture)", p.Spec.NodeName, p.Name)
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
	return metrics.Counted{}, fmt.Errorf("the kubelet of node %s lists no pod %s yet", p.Spec.NodeName, p.Name)
}
