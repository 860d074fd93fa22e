package metrics

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestContainerSamplerSeesThrottling samples a container spinning under a
// 0.2 CPU limit. How much CPU it gets is the host's doing (a loaded
// 2-core host gave one limited to 0.5 CPU 0.31 cores, throttled once in
// 40 periods), so the figures are held to the limit and to the
// container's own counters read by the test around the sampling, not to
// a share of the limit; 0.2 CPU is a quota a loaded host still lets it
// reach.
func TestContainerSamplerSeesThrottling(t *testing.T) {
	const limit = 0.2
	cli := testenv.Docker(t)
	id := burnContainer(t, cli, limit)
	time.Sleep(500 * time.Millisecond) // let the loop reach its limit
	before := oneShot(t, cli, id)
	run := Start(t.Context(), cli, []Target{{Service: "burn", ID: id}})
	time.Sleep(5200 * time.Millisecond) // a frame a second, the first the baseline: 2 s to spare for 3 samples
	stopped := time.Now()
	stats, samples := run.Stop()
	// Stop inspects the container with a bound of 2 s of its own.
	if d := time.Since(stopped); d > 10*time.Second {
		t.Errorf("Stop took %v", d)
	}
	after := oneShot(t, cli, id)
	rs := stats["burn"]
	t.Logf("burn: %+v", rs)
	if rs.CPUWaitCoresMean != nil {
		t.Logf("burn waited for %.3f cores (throttled or runnable)", *rs.CPUWaitCoresMean)
	}
	for _, s := range samples["burn"] {
		t.Logf("  t=%.2f cores=%.3f pct=%.1f throttled=%d mem=%d", s.T, s.CPUCores, s.CPUPctOfLimit, s.ThrottledPeriods, s.MemBytes)
	}
	// The counters over a window that holds the sampler's, computed here
	// rather than by the sampler's code.
	own := float64(after.CPUStats.CPUUsage.TotalUsage-before.CPUStats.CPUUsage.TotalUsage) /
		float64(after.Read.Sub(before.Read).Nanoseconds())
	ownThrottled := after.CPUStats.ThrottlingData.ThrottledPeriods - before.CPUStats.ThrottlingData.ThrottledPeriods
	t.Logf("the container's counters: %.3f cores, %d periods throttled", own, ownThrottled)
	if rs.Samples < 3 {
		t.Fatalf("samples = %d, want >= 3", rs.Samples)
	}
	if rs.CPULimitCores != limit {
		t.Errorf("cpu limit read back = %v, want %v", rs.CPULimitCores, limit)
	}
	if rs.CPUCoresMean <= 0 || rs.CPUCoresMean > 1.1*limit || math.Abs(rs.CPUCoresMean/own-1) > 0.35 {
		t.Errorf("cpu cores mean = %.3f, want within 35 %% of the counters' %.3f and at most the limit", rs.CPUCoresMean, own)
	}
	if want := 100 * rs.CPUCoresMean / limit; math.Abs(rs.CPUPctOfLimitMean-want) > 0.01*want {
		t.Errorf("cpu %% of limit = %.1f, want the cores' %.1f", rs.CPUPctOfLimitMean, want)
	}
	if rs.ThrottledPeriods == 0 || rs.ThrottledS <= 0 || rs.ThrottledPeriods > ownThrottled {
		t.Errorf("throttled periods = %d, seconds = %v, want > 0 and at most the counters' %d", rs.ThrottledPeriods, rs.ThrottledS, ownThrottled)
	}
	if rs.MemPeakBytes == 0 || rs.MemLimitBytes == 0 || rs.OOMKilled || rs.Restarts != 0 {
		t.Errorf("memory/state: %+v", rs)
	}
}

// oneShot reads the container's stats once, as docker stats --no-stream.
func oneShot(t *testing.T, cli *client.Client, id string) *container.StatsResponse {
	t.Helper()
	resp, err := cli.ContainerStatsOneShot(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st container.StatsResponse
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return &st
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
