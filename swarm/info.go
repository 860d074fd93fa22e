package swarm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/docker/docker/api/types/swarm"

	"github.com/sweep-tool/sweep/sweep"
)

// NCPU is the CPU count of the largest node of the swarm, to check the
// CPU limits against: the target can be placed on no larger one.
func (s *Stack) NCPU(ctx context.Context) (int, error) {
	list, err := s.mgr.NodeList(ctx, swarm.NodeListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list nodes: %w", err)
	}
	n := 0
	for _, node := range list {
		n = max(n, int(node.Description.Resources.NanoCPUs/1e9))
	}
	return n, nil
}

// Info gathers the facts sweep.json records: the
// target's node's CPUs, the manager's Docker version, "swarm" as the CLI
// (no compose CLI runs), the image each service's running task uses and
// a hash of the translated service specs. Call it after the first Apply.
func (s *Stack) Info(ctx context.Context) (sweep.StackFacts, error) {
	info, err := s.mgr.Info(ctx)
	if err != nil {
		return sweep.StackFacts{}, fmt.Errorf("engine info: %w", err)
	}
	f := sweep.StackFacts{NCPU: info.NCPU, RuntimeVersion: info.ServerVersion,
		Tool: "swarm (Engine API services)", Images: map[string]string{}}
	data, err := json.Marshal(s.specs)
	if err != nil {
		return f, err
	}
	sum := sha256.Sum256(data)
	f.ConfigSHA256 = hex.EncodeToString(sum[:])
	for _, svc := range slices.Sorted(maps.Keys(s.ids)) {
		t, err := s.running(ctx, svc)
		if err != nil {
			continue
		}
		f.Images[svc] = s.imageOf(ctx, t)
		if svc == s.opts.Service {
			if n, err := s.nodes.get(ctx, t.NodeID); err == nil && n.engine != nil {
				if ni, err := n.engine.Info(ctx); err == nil {
					f.NCPU = ni.NCPU
				}
			}
		}
	}
	return f, nil
}

// imageOf is the image ID a task's container runs, from its node's
// engine; else the image the task names.
func (s *Stack) imageOf(ctx context.Context, t swarm.Task) string {
	if n, err := s.nodes.get(ctx, t.NodeID); err == nil && n.engine != nil && t.Status.ContainerStatus != nil {
		if c, err := n.engine.ContainerInspect(ctx, t.Status.ContainerStatus.ContainerID); err == nil {
			return c.Image
		}
	}
	if t.Spec.ContainerSpec != nil {
		return t.Spec.ContainerSpec.Image
	}
	return ""
}
