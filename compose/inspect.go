package compose

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/sweep-tool/sweep/results"
)

// ReadBack returns what the engine says the target runs with: its CPU
// limit, the swept env vars (absent ones are left out), its id and the
// start time of its process.
func (s *Stack) ReadBack(ctx context.Context) (results.Applied, error) {
	id, err := s.target(ctx)
	if err != nil {
		return results.Applied{}, err
	}
	return s.readBackOf(ctx, id)
}

// readBackOf is ReadBack of container id.
func (s *Stack) readBackOf(ctx context.Context, id string) (results.Applied, error) {
	c, err := s.eng.ContainerInspect(ctx, id)
	if err != nil {
		return results.Applied{}, fmt.Errorf("inspect %s: %w", s.opts.Service, err)
	}
	applied := results.Applied{ContainerID: c.ID, Env: map[string]string{}}
	if c.State != nil {
		applied.ContainerStartedAt, _ = time.Parse(time.RFC3339Nano, c.State.StartedAt)
	}
	if c.HostConfig != nil {
		applied.CPUs = cpusOf(c.HostConfig.Resources)
		applied.MemoryBytes = c.HostConfig.Memory
	}
	if c.Config != nil {
		applied.Env = pickEnv(c.Config.Env, s.opts.SweptEnv)
	}
	return applied, nil
}

// cpusOf is the CPU limit in cores: NanoCPUs, else CpuQuota/CpuPeriod
// (the period defaults to 100 ms), else 0 for no limit.
func cpusOf(r container.Resources) float64 {
	switch {
	case r.NanoCPUs > 0:
		return float64(r.NanoCPUs) / 1e9
	case r.CPUQuota > 0:
		period := r.CPUPeriod
		if period <= 0 {
			period = 100_000
		}
		return float64(r.CPUQuota) / float64(period)
	}
	return 0
}

// pickEnv returns the values of names from a KEY=VALUE list; for a
// repeated key the last one wins, as in the container.
func pickEnv(env, names []string) map[string]string {
	out := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		for _, n := range names {
			if k == n {
				out[k] = v
			}
		}
	}
	return out
}

// Logs returns the last n lines (all when n <= 0) of the target's stdout
// and stderr, interleaved as the engine stored them, followed by the full
// output of its last healthchecks when it has a healthcheck.
func (s *Stack) Logs(ctx context.Context, n int) (string, error) {
	id, err := s.target(ctx)
	if err != nil {
		return "", err
	}
	return s.logsOf(ctx, id, n)
}

// logsOf is Logs of container id.
func (s *Stack) logsOf(ctx context.Context, id string, n int) (string, error) {
	c, err := s.eng.ContainerInspect(ctx, id)
	if err != nil {
		return "", fmt.Errorf("inspect %s: %w", s.opts.Service, err)
	}
	tail := "all"
	if n > 0 {
		tail = strconv.Itoa(n)
	}
	rc, err := s.eng.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Tail: tail})
	if err != nil {
		return "", fmt.Errorf("logs of %s: %w", s.opts.Service, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if c.Config != nil && c.Config.Tty {
		_, err = io.Copy(&buf, rc)
	} else {
		_, err = stdcopy.StdCopy(&buf, &buf, rc)
	}
	if err != nil {
		return buf.String(), fmt.Errorf("read logs of %s: %w", s.opts.Service, err)
	}
	return buf.String() + healthLog(c.State), nil
}
