package metrics

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/internal/testenv"
)

// The benchmarks report CPU time per reading, not wall time: "cpu-ns/op"
// is this process (user + system), "engine-cpu-ns/op" is dockerd,
// containerd and the container's shim together, "pg-cpu-ns/op" the
// sampler's PostgreSQL backend. At one reading a second, 10 ms/op is 1 %
// of a core.

// BenchmarkContainerOneShot is the alternative the sampler does not use:
// a one-shot stats request per reading, decoded and folded in.
func BenchmarkContainerOneShot(b *testing.B) {
	cli := testenv.Docker(b)
	id := burnContainer(b, cli, 0.2)
	s := &series{target: Target{ID: id}, limit: 0.2}
	engine := enginePIDs(b, cli, id)
	measureCPU(b, engine, func() {
		for b.Loop() {
			resp, err := cli.ContainerStatsOneShot(b.Context(), id)
			if err != nil {
				b.Fatal(err)
			}
			var st container.StatsResponse
			err = json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
			if err != nil {
				b.Fatal(err)
			}
			s.observe(&st, 0)
		}
	})
}

// BenchmarkContainerStream is the sampler's way: one streaming stats
// request, a frame decoded and folded in per op (the engine sends one a
// second, so run it with -benchtime=10x).
func BenchmarkContainerStream(b *testing.B) {
	cli := testenv.Docker(b)
	id := burnContainer(b, cli, 0.2)
	engine := enginePIDs(b, cli, id)
	resp, err := cli.ContainerStats(b.Context(), id, true)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	s := &series{target: Target{ID: id}, limit: 0.2}
	var st container.StatsResponse
	if err := dec.Decode(&st); err != nil { // the first frame has no history
		b.Fatal(err)
	}
	measureCPU(b, engine, func() {
		for b.Loop() {
			st = container.StatsResponse{}
			if err := dec.Decode(&st); err != nil {
				b.Fatal(err)
			}
			s.observe(&st, 0)
		}
	})
}

// BenchmarkDBTick is the PostgreSQL sampler's tick: one query.
func BenchmarkDBTick(b *testing.B) {
	db := openDB(b, postgresURL(b))
	var pid int
	db.mu.Lock()
	pid = int(db.conn.PgConn().PID())
	db.mu.Unlock()
	var acc dbSeries
	measureCPU(b, []int{pid}, func() {
		for b.Loop() {
			rd, err := db.read(context.Background())
			acc.observe(0, rd, err == nil)
		}
	})
	b.ReportMetric(float64(acc.missing), "missing")
}

// measureCPU runs loop and reports the process's and others' CPU per op.
// The others serve other clients too (on a shared host, much of their
// time), so their rate over an idle second before the loop is taken off.
func measureCPU(b *testing.B, others []int, loop func()) {
	b.Helper()
	idle0 := procsCPU(others)
	time.Sleep(2 * time.Second)
	idleRate := float64(procsCPU(others)-idle0) / 2 / float64(time.Second)
	self0, others0, start := selfCPU(), procsCPU(others), time.Now()
	loop()
	n := float64(b.N)
	b.ReportMetric(float64(selfCPU()-self0)/n, "cpu-ns/op")
	name := "engine"
	if len(others) == 1 {
		name = "pg"
	}
	busy := float64(procsCPU(others) - others0)
	b.ReportMetric(busy/n, name+"-cpu-ns/op")
	b.ReportMetric((busy-idleRate*float64(time.Since(start)))/n, name+"-net-cpu-ns/op")
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procsCPU sums user and system time of pids from /proc (10 ms ticks).
func procsCPU(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		_, rest, _ := strings.Cut(string(data), ") ") // comm may hold spaces
		f := strings.Fields(rest)
		if len(f) < 13 {
			continue
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return total
}

// enginePIDs finds dockerd, containerd and the container's shim, the
// processes that serve a stats call. Missing ones are left out.
func enginePIDs(b *testing.B, cli interface {
	ContainerInspect(context.Context, string) (container.InspectResponse, error)
}, id string) []int {
	b.Helper()
	var pids []int
	if data, err := os.ReadFile("/var/run/docker.pid"); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			pids = append(pids, pid)
		}
	}
	if pid := pidOf("containerd"); pid > 0 {
		pids = append(pids, pid)
	}
	if c, err := cli.ContainerInspect(b.Context(), id); err == nil && c.State != nil {
		if ppid := parentOf(c.State.Pid); ppid > 0 {
			pids = append(pids, ppid)
		}
	}
	return pids
}

func pidOf(comm string) int {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "comm")); err == nil && strings.TrimSpace(string(data)) == comm {
			return pid
		}
	}
	return 0
}

func parentOf(pid int) int {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
