package metrics

import (
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/testenv"
)

func TestContainerSamplerSeesThrottling(t *testing.T) {
	cli := testenv.Docker(t)
	id := burnContainer(t, cli, 0.5)
	time.Sleep(500 * time.Millisecond) // let the loop reach its limit
	run := Start(t.Context(), cli, []Target{{Service: "burn", ID: id}})
	time.Sleep(4200 * time.Millisecond)
	stopped := time.Now()
	stats, samples := run.Stop()
	if d := time.Since(stopped); d > 2*time.Second {
		t.Errorf("Stop took %v", d)
	}
	rs := stats["burn"]
	t.Logf("burn: %+v", rs)
	for _, s := range samples["burn"] {
		t.Logf("  t=%.2f cores=%.3f pct=%.1f throttled=%d mem=%d", s.T, s.CPUCores, s.CPUPctOfLimit, s.ThrottledPeriods, s.MemBytes)
	}
	if rs.Samples < 3 {
		t.Fatalf("samples = %d, want >= 3", rs.Samples)
	}
	if rs.CPULimitCores != 0.5 {
		t.Errorf("cpu limit read back = %v, want 0.5", rs.CPULimitCores)
	}
	if rs.CPUCoresMean < 0.3 || rs.CPUCoresMean > 0.7 {
		t.Errorf("cpu cores mean = %.3f, want 0.3..0.7", rs.CPUCoresMean)
	}
	if rs.CPUPctOfLimitMean < 60 || rs.CPUPctOfLimitMean > 140 {
		t.Errorf("cpu %% of limit = %.1f, want 60..140", rs.CPUPctOfLimitMean)
	}
	if rs.ThrottledPeriods == 0 || rs.ThrottledS <= 0 {
		t.Errorf("throttled periods = %d, seconds = %v, want > 0", rs.ThrottledPeriods, rs.ThrottledS)
	}
	if rs.MemPeakBytes == 0 || rs.MemLimitBytes == 0 || rs.OOMKilled || rs.Restarts != 0 {
		t.Errorf("memory/state: %+v", rs)
	}
}

// burnContainer starts a container spinning one CPU under a limit and
// removes it when the test ends.
func burnContainer(t testing.TB, cli *client.Client, cpus float64) string {
	t.Helper()
	ref := testenv.GoImage(t, cli, "sweep-metrics-burn", "./testdata/burn")
	cfg := &container.Config{Image: ref, Cmd: []string{"/burn"}}
	host := &container.HostConfig{Resources: container.Resources{NanoCPUs: int64(cpus * 1e9)}}
	return testenv.StartContainer(t, cli, cfg, host)
}
