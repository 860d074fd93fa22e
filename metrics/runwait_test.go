package metrics

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// TestRunDelays reads a proc tree and cgroup trees laid out by hand: the
// tasks come from the container's cgroup's own list (v1 pids, v2 as
// unified/ beside v1, or v2 alone), a task that vanished is skipped, and a
// schedstat line without the delay is an error naming the file.
func TestRunDelays(t *testing.T) {
	t.Parallel()
	write := func(root, rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	procs := t.TempDir()
	write(procs, "10/schedstat", "5000 700 12\n")
	write(procs, "11/schedstat", "9000 300 40\n")
	write(procs, "20/schedstat", "1 99999 1\n") // another container's
	// 12 is listed but ended
	v1 := "8:pids:/docker/abc\n2:cpuacct:/docker/abc\n1:cpu:/docker/abc\n0::/docker/abc\n"
	for _, tc := range []struct {
		name, group, file string
	}{
		{"v1 pids", v1, "pids/docker/abc/tasks"},
		{"v1 cpu", "2:cpu,cpuacct:/docker/abc\n", "cpu,cpuacct/docker/abc/tasks"},
		{"hybrid", "0::/docker/abc\n", "unified/docker/abc/cgroup.threads"},
		{"v2", "0::/system.slice/docker-abc.scope\n", "system.slice/docker-abc.scope/cgroup.threads"},
	} {
		cgroups := t.TempDir()
		write(cgroups, tc.file, "10\n11\n12\n")
		write(cgroups, "pids/docker/other/tasks", "20\n")
		got, err := procFS(procs).runDelays(tc.group, cgroups)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(got) != 2 || got[10] != 700 || got[11] != 300 {
			t.Errorf("%s: runDelays = %v, want tasks 10: 700 and 11: 300", tc.name, got)
		}
	}
	if _, err := procFS(procs).runDelays("8:pids:/docker/gone\n", t.TempDir()); err == nil {
		t.Error("a cgroup without a task list: no error")
	}
	cgroups := t.TempDir()
	write(cgroups, "pids/docker/abc/tasks", "10\n13\n")
	write(procs, "13/schedstat", "5000\n")
	if _, err := procFS(procs).runDelays(v1, cgroups); err == nil || !strings.Contains(err.Error(), filepath.Join("13", "schedstat")) {
		t.Errorf("a line without the delay: %v, want an error naming the file", err)
	}
}

// TestWaitedBetween: a task's growth, a new task's whole delay, a reused
// id (its counter went back) counted as new, an ended task's share gone.
func TestWaitedBetween(t *testing.T) {
	t.Parallel()
	begin := map[int]uint64{1: 100, 2: 500, 3: 50}
	end := map[int]uint64{1: 400, 2: 20, 4: 70}
	if got, want := waitedBetween(begin, end), uint64(300+20+70); got != want {
		t.Errorf("waitedBetween = %d, want %d", got, want)
	}
	w := &waitReading{group: "g", at: time.Unix(0, 0), delays: begin}
	e := &waitReading{group: "g", at: time.Unix(0, 780), delays: end}
	if c := w.coresUntil(e); c == nil || *c != 0.5 {
		t.Errorf("coresUntil = %v, want 0.5 (390 ns over 780)", c)
	}
	if c := w.coresUntil(&waitReading{group: "h", at: e.at, delays: end}); c != nil {
		t.Errorf("coresUntil another cgroup = %v, want none", *c)
	}
	if c := w.coresUntil(nil); c != nil {
		t.Errorf("coresUntil no reading = %v, want none", *c)
	}
}

// TestSamplerReadsRunWait pins two spinning containers to one CPU: each
// is always runnable, so the CPU each used and the CPU it waited for
// add up to about one core whatever else the host does, and each waited
// for a good part of it. The engine's stats give the first, /proc the
// second: two sources that agree only if the wait is read right.
func TestSamplerReadsRunWait(t *testing.T) {
	cli := testenv.Docker(t)
	info, err := cli.Info(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cpu := strconv.Itoa(info.NCPU - 1)
	ref := testenv.GoImage(t, cli, "sweep-metrics-burn", "./testdata/burn")
	var targets []Target
	for _, name := range []string{"a", "b"} {
		cfg := &container.Config{Image: ref, Cmd: []string{"/burn"}}
		host := &container.HostConfig{Resources: container.Resources{CpusetCpus: cpu}}
		targets = append(targets, Target{Service: name, ID: testenv.StartContainer(t, cli, cfg, host)})
	}
	time.Sleep(500 * time.Millisecond)
	run := Start(t.Context(), cli, targets)
	time.Sleep(4200 * time.Millisecond)
	stats, _ := run.Stop()
	for _, name := range []string{"a", "b"} {
		rs := stats[name]
		if rs.CPUWaitCoresMean == nil {
			t.Fatalf("%s: no wait read (%+v)", name, rs)
		}
		wait := *rs.CPUWaitCoresMean
		t.Logf("%s on CPU %s: used %.3f cores, waited %.3f", name, cpu, rs.CPUCoresMean, wait)
		// the Go runtime's own threads wake on that CPU now and then and
		// wait behind the spinning one too: somewhat above 1 (1.14–1.16
		// on a 2-core host building beside it)
		if sum := rs.CPUCoresMean + wait; sum < 0.8 || sum > 1.5 {
			t.Errorf("%s: used %.3f + waited %.3f = %.3f cores, want about 1 (one thread always runnable)", name, rs.CPUCoresMean, wait, sum)
		}
		if wait < 0.3 {
			t.Errorf("%s: waited %.3f cores beside a spinning neighbour on its CPU, want at least 0.3", name, wait)
		}
	}
}
