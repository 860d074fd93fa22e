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

// TestRunDelays reads a proc tree laid out by hand: only the tasks of the
// container's cgroup count, a task that vanished is skipped, and a
// schedstat line without the delay is an error naming the file.
func TestRunDelays(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ours := "12:cpu,cpuacct:/docker/abc123\n"
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("10/cgroup", ours)
	write("10/task/10/schedstat", "5000 700 12\n")
	write("10/task/11/schedstat", "9000 300 40\n")
	write("11/cgroup", ours) // a process of the container whose tasks ended
	write("20/cgroup", "12:cpu,cpuacct:/docker/other\n")
	write("20/task/20/schedstat", "1 99999 1\n")
	write("self/cgroup", ours) // not a pid
	p := procFS(root)
	got, err := p.runDelays(ours)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[10] != 700 || got[11] != 300 {
		t.Errorf("runDelays = %v, want tasks 10: 700 and 11: 300", got)
	}
	if _, err := p.runDelays("12:cpu,cpuacct:/docker/gone\n"); err == nil {
		t.Error("a cgroup with no task read: no error")
	}
	write("10/task/12/schedstat", "5000\n")
	if _, err := p.runDelays(ours); err == nil || !strings.Contains(err.Error(), filepath.Join("10", "task", "12", "schedstat")) {
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
