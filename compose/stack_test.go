package compose

import (
	"context"
	"errors"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"

	"github.com/sweep-tool/sweep/engine"
	"github.com/sweep-tool/sweep/internal/testenv"
	"github.com/sweep-tool/sweep/results"
	"github.com/sweep-tool/sweep/sweep"
)

func TestStackOnEngine(t *testing.T) {
	eng := testenv.Docker(t)
	cli := composeCLI(t)
	file := writeStack(t, testenv.GoImage(t, eng, "sweep-compose-test", "./testdata/httpd"))
	runID := newRunID(t)
	_, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "nope", RunID: runID}, Engine: eng, CLI: cli})
	if !errors.Is(err, sweep.ErrBadInput) || !strings.Contains(err.Error(), "{service}") ||
		!strings.Contains(err.Error(), "services: side, web") {
		t.Errorf("New with an unknown service = %v, want bad input naming --service and listing the services", err)
	}
	s, err := New(t.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "web", RunID: runID, SweptEnv: []string{"WEB_THREADS", "DB_POOL"}}, Engine: eng, CLI: cli})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { down(t, s, eng, runID) })

	var side string
	for i, cpus := range []float64{0.5, 1} {
		cell := sweep.TargetConfig{
			Dir:    filepath.Join(t.TempDir(), "cell"),
			CPUs:   cpus,
			Env:    map[string]string{"WEB_THREADS": string(rune('1' + i)), "DB_POOL": string(rune('4' + i))},
			Labels: map[string]string{sweep.LabelCell: "c" + string(rune('1'+i))},
		}
		if i == 0 {
			checkStartDeps(t, s, cell)
		}
		applyCell(t, s, cell)
		id := checkReadBack(t, s, cell)
		checkLabels(t, eng, id, map[string]string{sweep.LabelRun: runID, sweep.LabelCell: cell.Labels[sweep.LabelCell]})
		sideID := serviceContainer(t, s, "side")
		checkLabels(t, eng, sideID, map[string]string{sweep.LabelRun: runID})
		if side != "" && side != sideID {
			t.Errorf("cell %d recreated the side service (%s -> %s); only the target may be", i+1, side, sideID)
		}
		side = sideID
		logs, err := s.Logs(t.Context(), 5)
		if err != nil || !strings.Contains(logs, "WEB_THREADS="+cell.Env["WEB_THREADS"]) {
			t.Errorf("Logs = %q, %v; want the startup line", logs, err)
		}
	}
	checkInfo(t, s)
	checkWatch(t, s, eng)
}

// checkStartDeps starts the services the target needs and checks that
// they run, labelled, while the target has no container yet.
func checkStartDeps(t *testing.T, s *Stack, cell sweep.TargetConfig) {
	t.Helper()
	if err := s.StartDeps(t.Context(), cell, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	ids, err := s.Containers(t.Context())
	if err != nil || ids["side"] == "" || ids["web"] != "" {
		t.Errorf("after StartDeps: containers %v (%v), want side running and no web yet", ids, err)
	}
}

// applyCell applies cell, waits until ready and logs how long that took.
func applyCell(t *testing.T, s *Stack, cell sweep.TargetConfig) {
	t.Helper()
	start := time.Now()
	if err := s.Apply(t.Context(), cell); err != nil {
		t.Fatal(err)
	}
	applied := time.Since(start)
	if err := s.WaitReady(t.Context(), 20*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("cpus %g: apply %s, ready after %s", cell.CPUs, applied.Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond))
}

// checkReadBack compares ReadBack with cell and returns the container id.
func checkReadBack(t *testing.T, s *Stack, cell sweep.TargetConfig) string {
	t.Helper()
	got, err := s.ReadBack(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := results.Applied{CPUs: cell.CPUs, Env: cell.Env, ContainerID: got.ContainerID}
	if got.CPUs != want.CPUs || !maps.Equal(got.Env, want.Env) || got.ContainerID == "" {
		t.Errorf("ReadBack = %+v, want %+v", got, want)
	}
	return got.ContainerID
}

func checkLabels(t *testing.T, eng *client.Client, id string, want map[string]string) {
	t.Helper()
	c, err := eng.ContainerInspect(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		if c.Config.Labels[k] != v {
			t.Errorf("container %s label %s = %q, want %q", c.Name, k, c.Config.Labels[k], v)
		}
	}
}

// serviceContainer returns the running container of service (via
// Stack.Containers, which it thereby tests).
func serviceContainer(t *testing.T, s *Stack, service string) string {
	t.Helper()
	ids, err := s.Containers(t.Context())
	if err != nil || len(ids) != 2 || ids[service] == "" {
		t.Fatalf("Containers = %v, %v; want web and side", ids, err)
	}
	return ids[service]
}

func checkInfo(t *testing.T, s *Stack) {
	t.Helper()
	f, err := s.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if f.NCPU < 1 || f.RuntimeVersion == "" || f.ToolVersion == "" || len(f.ConfigSHA256) != 64 ||
		!strings.HasPrefix(f.Images["web"], "sha256:") || f.Images["web"] != f.Images["side"] {
		t.Errorf("Info = %+v", f)
	}
	t.Logf("facts: %+v", f)
}

// down runs Down as the runner does after cancellation and checks that no
// container or network of the run is left.
func down(t testing.TB, s *Stack, eng *client.Client, runID string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), time.Minute)
	defer cancel()
	start := time.Now()
	if err := s.Down(ctx); err != nil {
		t.Error(err)
	}
	t.Logf("down took %s", time.Since(start).Round(time.Millisecond))
	left, err := eng.ContainerList(ctx, container.ListOptions{All: true, Filters: engine.LabelFilter(sweep.LabelRun + "=" + runID)})
	if err != nil || len(left) != 0 {
		t.Errorf("after Down: %d containers labelled %s=%s (%v)", len(left), sweep.LabelRun, runID, err)
	}
	cleaned, err := Cleanup(ctx, eng, runID)
	if err != nil || len(cleaned.Containers)+len(cleaned.Networks)+len(cleaned.Volumes) != 0 {
		t.Errorf("Cleanup after Down found %+v (%v); want nothing", cleaned, err)
	}
}

// BenchmarkRecreate measures the per-cell overhead the runner pays: Apply
// (override + compose up of the target only) then WaitReady, alternating
// two configurations so every iteration recreates the container.
func BenchmarkRecreate(b *testing.B) {
	eng := testenv.Docker(b)
	file := writeStack(b, testenv.GoImage(b, eng, "sweep-compose-test", "./testdata/httpd"))
	runID := newRunID(b)
	s, err := New(b.Context(), Options{StackOptions: sweep.StackOptions{Files: []string{file}, Service: "web", RunID: runID}, Engine: eng, CLI: composeCLI(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { down(b, s, eng, runID) })
	cell := func(i int) sweep.TargetConfig {
		return sweep.TargetConfig{Dir: b.TempDir(), CPUs: []float64{0.5, 1}[i%2],
			Env: map[string]string{"WEB_THREADS": string(rune('1' + i%2))}}
	}
	if err := s.Apply(b.Context(), cell(1)); err != nil {
		b.Fatal(err)
	}
	var apply, ready time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		if err := s.Apply(b.Context(), cell(i)); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if err := s.WaitReady(b.Context(), 30*time.Second); err != nil {
			b.Fatal(err)
		}
		apply, ready, i = apply+mid.Sub(start), ready+time.Since(mid), i+1
	}
	b.ReportMetric(float64(apply.Milliseconds())/float64(i), "apply-ms/op")
	b.ReportMetric(float64(ready.Milliseconds())/float64(i), "ready-ms/op")
}
