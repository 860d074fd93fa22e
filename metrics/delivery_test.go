package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
)

// oneShots is an Engine that answers one-shot stats requests with its
// readings in turn, and inspects with pid; it is enough for Reception.
type oneShots struct {
	Engine
	readings []container.StatsResponse
	pid      int
	id       string
}

func (e *oneShots) ContainerStatsOneShot(context.Context, string) (container.StatsResponseReader, error) {
	if len(e.readings) == 0 {
		return container.StatsResponseReader{}, errors.New("no such container")
	}
	b, _ := json.Marshal(e.readings[0])
	e.readings = e.readings[1:]
	return container.StatsResponseReader{Body: io.NopCloser(strings.NewReader(string(b)))}, nil
}

func (e *oneShots) ContainerInspect(context.Context, string) (container.InspectResponse, error) {
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: e.id,
		State: &container.State{Pid: e.pid}}}, nil
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// stats is a reading at t0+at with these interfaces (name → rx bytes,
// packets) and CPU time.
func stats(at time.Duration, cpuNS uint64, nets map[string][2]uint64) container.StatsResponse {
	st := container.StatsResponse{Read: t0.Add(at)}
	st.CPUStats.CPUUsage.TotalUsage = cpuNS
	if nets != nil {
		st.Networks = map[string]container.NetworkStats{}
		for name, n := range nets {
			st.Networks[name] = container.NetworkStats{RxBytes: n[0], RxPackets: n[1], TxBytes: 99}
		}
	}
	return st
}

func TestReceptionFromNetworkCounters(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		readings []container.StatsResponse
		want     results.Delivery
	}{
		{"every interface summed", []container.StatsResponse{
			stats(0, 0, map[string][2]uint64{"eth0": {1_000, 10}, "eth1": {500, 5}}),
			stats(3250*time.Millisecond, 0, map[string][2]uint64{"eth0": {2_001_000, 2_010}, "eth1": {30_500, 305}}),
		}, results.Delivery{Method: "network", ReceivedBytes: 2_030_000, ReceivedPackets: 2_300, WindowS: 3.25}},
		// Nothing arrived: a reading, not a restart.
		{"no traffic", []container.StatsResponse{
			stats(0, 0, map[string][2]uint64{"eth0": {7_000, 70}}),
			stats(2*time.Second, 0, map[string][2]uint64{"eth0": {7_000, 70}}),
		}, results.Delivery{Method: "network", WindowS: 2}},
		{"restarted: counters went back", []container.StatsResponse{
			stats(0, 0, map[string][2]uint64{"eth0": {9_000, 90}}),
			stats(time.Second, 0, map[string][2]uint64{"eth0": {100, 1}}),
		}, results.Delivery{Method: "none", Note: "the target's network counters went back during the phase (it restarted)"}},
		{"gone before the end", []container.StatsResponse{stats(0, 0, map[string][2]uint64{"eth0": {1, 1}})},
			results.Delivery{Method: "none", Note: "the target's counters could not be read after the phase: no such container"}},
		{"not running", []container.StatsResponse{{}},
			results.Delivery{Method: "none", Note: "the target's counters could not be read before the phase: container c0ffee is not running"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			eng := &oneShots{readings: tt.readings}
			got := StartReception(t.Context(), eng, "c0ffee", "http://127.0.0.1:18080").Stop(t.Context())
			if !deliveryEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func deliveryEqual(a, b results.Delivery) bool {
	return slices.Equal(a.Listeners, b.Listeners) && a.Method == b.Method && a.ReceivedBytes == b.ReceivedBytes &&
		a.ReceivedPackets == b.ReceivedPackets && a.WindowS == b.WindowS && a.ListenerIsTarget == b.ListenerIsTarget &&
		a.TargetCPUS == b.TargetCPUS && a.Note == b.Note
}

// proc is a process of a fake proc file system.
type proc struct {
	pid     int
	cgroup  string
	comm    string
	sockets []uint64 // inodes of the socket fds it holds
}

// fakeProcFS lays out a proc file system in a temporary directory: the
// processes with their cgroup, comm and fds (fd 0 a pipe, then the
// sockets), and the TCP tables of the network namespace of the first.
func fakeProcFS(t *testing.T, tcp, tcp6 string, procs ...proc) string {
	t.Helper()
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(path, target string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(root, path)); err != nil {
			t.Fatal(err)
		}
	}
	write("net/tcp", "header only: the host's table is not the target's\n") // not read
	for i, p := range procs {
		dir := fmt.Sprint(p.pid)
		write(dir+"/cgroup", p.cgroup)
		write(dir+"/comm", p.comm+"\n")
		if err := os.MkdirAll(filepath.Join(root, dir, "fd"), 0o755); err != nil {
			t.Fatal(err)
		}
		link(dir+"/fd/0", "pipe:[7]")
		for j, inode := range p.sockets {
			link(fmt.Sprintf("%s/fd/%d", dir, j+3), fmt.Sprintf("socket:[%d]", inode))
		}
		if i == 0 {
			write(dir+"/net/tcp", tcp)
			if tcp6 != noTCP6 {
				write(dir+"/net/tcp6", tcp6)
			}
		}
	}
	return root
}

// noTCP6 as fakeProcFS's tcp6 leaves the file out: a kernel without IPv6.
const noTCP6 = "(none)"

const (
	targetID     = "c85b5e999743f94946cd44699c286278157e54e9ed4dc4b1676528e47dfd13ba"
	targetCgroup = "1:cpu:/docker/" + targetID + "\n0::/docker/" + targetID + "\n"
	tcpHeader    = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	// 127.0.0.1:18080 listening (inode 1001), 0.0.0.0:5432 listening
	// (1002), and a connection to 18080 (1003).
	tcpTable = tcpHeader +
		"   0: 0100007F:46A0 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0 100 0 0 10 0\n" +
		"   1: 00000000:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1002 1 0 100 0 0 10 0\n" +
		"   2: 0100007F:46A0 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0 20 4 30 10 -1\n"
	// :::18080 listening (inode 1004).
	tcp6Wildcard = tcpHeader +
		"   0: 00000000000000000000000000000000:46A0 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1004 1 0 100 0 0 10 0\n"
)

func TestReceptionOfAHostNetworkTarget(t *testing.T) {
	t.Parallel()
	target := proc{pid: 812, cgroup: targetCgroup, comm: "demoapp", sockets: []uint64{1001, 1003}}
	child := proc{pid: 813, cgroup: targetCgroup, comm: "demoapp-worker", sockets: []uint64{1001}}
	nginx := proc{pid: 99, cgroup: "0::/system.slice/nginx.service\n", comm: "nginx", sockets: []uint64{1004}}
	thief := proc{pid: 99, cgroup: "0::/user.slice\n", comm: "other", sockets: []uint64{1001}}
	tests := []struct {
		name  string
		url   string
		id    string
		procs []proc
		tcp6  string
		idle  bool // the target used no CPU over the phase
		want  results.Delivery
	}{
		{"the target holds the port", "http://127.0.0.1:18080/fhir", targetID, []proc{target, child}, tcpHeader, false,
			results.Delivery{Method: "host-socket", ListenerIsTarget: true, TargetCPUS: 0.25, WindowS: 3,
				Listeners: []string{"pid 812 demoapp (target)", "pid 813 demoapp-worker (target)"}}},
		{"a kernel without IPv6", "http://127.0.0.1:18080/fhir", targetID, []proc{target}, noTCP6, false,
			results.Delivery{Method: "host-socket", ListenerIsTarget: true, TargetCPUS: 0.25, WindowS: 3,
				Listeners: []string{"pid 812 demoapp (target)"}}},
		{"an idle target: no CPU used, not a restart", "http://127.0.0.1:18080/fhir", targetID, []proc{target}, tcpHeader, true,
			results.Delivery{Method: "host-socket", ListenerIsTarget: true, WindowS: 3,
				Listeners: []string{"pid 812 demoapp (target)"}}},
		{"another process holds it too", "http://127.0.0.1:18080", targetID, []proc{target, nginx}, tcp6Wildcard, false,
			results.Delivery{Method: "host-socket", TargetCPUS: 0.25, WindowS: 3,
				Listeners: []string{"pid 812 demoapp (target)", "pid 99 nginx"}}},
		{"only another process holds it", "http://127.0.0.1:18080", targetID, []proc{{pid: 812, cgroup: targetCgroup, comm: "demoapp"}, thief}, tcpHeader, false,
			results.Delivery{Method: "host-socket", TargetCPUS: 0.25, WindowS: 3, Listeners: []string{"pid 99 other"}}},
		{"nobody listens on the port", "http://127.0.0.1:18081", targetID, []proc{target}, tcpHeader, false,
			results.Delivery{Method: "host-socket", TargetCPUS: 0.25, WindowS: 3}},
		{"not this machine's processes", "http://127.0.0.1:18080", "0123456789ab", []proc{target}, tcpHeader, false,
			results.Delivery{Method: "none", Note: "the target has no network counters of its own and its processes are not visible here " +
				"(is the engine on another machine, or sweep in a container?)"}},
		{"not this machine's address", "http://192.0.2.1", targetID, []proc{target}, tcpHeader, false,
			results.Delivery{Method: "none", Note: "the target has no network counters of its own and the URL's host 192.0.2.1 is not an address of this machine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cpuEnd := uint64(1_250_000_000)
			if tt.idle {
				cpuEnd = 1_000_000_000
			}
			eng := &oneShots{readings: []container.StatsResponse{stats(0, 1_000_000_000, nil), stats(3*time.Second, cpuEnd, nil)},
				pid: 812, id: tt.id}
			rx := StartReception(t.Context(), eng, tt.id, tt.url)
			rx.procs = fakeProcFS(t, tcpTable, tt.tcp6, tt.procs...)
			got := rx.Stop(t.Context())
			if !deliveryEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

func TestParseHexAddr(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0100007F:1F90":                         "127.0.0.1:8080",
		"00000000:0000":                         "0.0.0.0:0",
		"0F02000A:46A0":                         "10.0.2.15:18080",
		"00000000000000000000000001000000:0050": "[::1]:80",
		"0000000000000000FFFF00000100007F:46A0": "127.0.0.1:18080", // v4-mapped
		"B80D0120000000000000000001000000:01BB": "[2001:db8::1]:443",
	} {
		ip, port, err := parseHexAddr(in)
		if got := net.JoinHostPort(ip.String(), fmt.Sprint(port)); err != nil || got != want {
			t.Errorf("parseHexAddr(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0100007F", "0100007F:XYZ", "01007F:1F90", "zz00007F:1F90"} {
		if _, _, err := parseHexAddr(bad); err == nil {
			t.Errorf("parseHexAddr(%q) accepted", bad)
		}
	}
}

// procEngine inspects a container with its own network namespace (or the
// mode given) whose process is pid; a stats request answers from
// readings, so a reading that should have come from /proc and did not
// shows.
type procEngine struct {
	oneShots
	mode container.NetworkMode
	pids []int // the process at each inspect, in turn; the last one stays
}

func (e *procEngine) ContainerInspect(context.Context, string) (container.InspectResponse, error) {
	pid := e.pids[0]
	if len(e.pids) > 1 {
		e.pids = e.pids[1:]
	}
	return container.InspectResponse{ContainerJSONBase: &container.ContainerJSONBase{ID: e.id,
		State: &container.State{Pid: pid}, HostConfig: &container.HostConfig{NetworkMode: e.mode}}}, nil
}

// netDev is a /proc/<pid>/net/dev with these interfaces' rx bytes and
// packets (and transmit figures that must not count).
func netDev(ifaces map[string][2]uint64) string {
	s := "Inter-|   Receive                                                |  Transmit\n" +
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	for _, name := range slices.Sorted(maps.Keys(ifaces)) {
		n := ifaces[name]
		s += fmt.Sprintf("%6s: %d %d 0 0 0 0 0 0 777777 7777 0 0 0 0 0 0\n", name, n[0], n[1])
	}
	return s
}

func TestReceptionFromProc(t *testing.T) {
	t.Parallel()
	other := "0::/docker/" + strings.Repeat("f", 64) + "\n" // another container's cgroup
	before := map[string][2]uint64{"lo": {5_000_000, 50_000}, "eth0": {1_000, 10}, "eth1": {500, 5}}
	after := map[string][2]uint64{"lo": {9_000_000, 90_000}, "eth0": {2_001_000, 2_010}, "eth1": {30_500, 305}}
	onEngine := []container.StatsResponse{
		stats(0, 0, map[string][2]uint64{"eth0": {100, 1}}),
		stats(2*time.Second, 0, map[string][2]uint64{"eth0": {600, 6}}),
	}
	tests := []struct {
		name   string
		mode   container.NetworkMode
		cgroup string
		pids   []int
		want   results.Delivery // WindowS is not compared for a proc reading (the host's clock)
	}{
		{"every interface but loopback summed, at once", "bridge", targetCgroup, []int{812},
			results.Delivery{Method: "network", ReceivedBytes: 2_030_000, ReceivedPackets: 2_300}},
		{"a user-defined network", "sweep_default", targetCgroup, []int{812},
			results.Delivery{Method: "network", ReceivedBytes: 2_030_000, ReceivedPackets: 2_300}},
		{"restarted: another process", "bridge", targetCgroup, []int{812, 901},
			results.Delivery{Method: "none", Note: "the target's process changed during the phase (it restarted)"}},
		// the engine's counters instead: the process is not this machine's
		{"another container's cgroup", "bridge", other, []int{812},
			results.Delivery{Method: "network", ReceivedBytes: 500, ReceivedPackets: 5, WindowS: 2}},
		{"another container's network", "container:c0ffee", targetCgroup, []int{812},
			results.Delivery{Method: "network", ReceivedBytes: 500, ReceivedPackets: 5, WindowS: 2}},
		{"no process", "bridge", targetCgroup, []int{0},
			results.Delivery{Method: "network", ReceivedBytes: 500, ReceivedPackets: 5, WindowS: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			procs := fakeProcFS(t, tcpHeader, noTCP6, proc{pid: 812, cgroup: tt.cgroup, comm: "demoapp"}, proc{pid: 901, cgroup: tt.cgroup, comm: "demoapp"})
			dev := func(pid int, ifaces map[string][2]uint64) {
				t.Helper()
				if err := os.WriteFile(filepath.Join(procs, fmt.Sprint(pid), "net", "dev"), []byte(netDev(ifaces)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(filepath.Join(procs, "901", "net"), 0o755); err != nil {
				t.Fatal(err)
			}
			dev(812, before)
			dev(901, map[string][2]uint64{"eth0": {0, 0}})
			eng := &procEngine{oneShots: oneShots{readings: slices.Clone(onEngine), id: targetID}, mode: tt.mode, pids: tt.pids}
			rx := startReception(t.Context(), eng, targetID, "http://127.0.0.1:18080", procs)
			dev(812, after)
			got := rx.Stop(t.Context())
			if tt.want.Method == "network" && tt.want.WindowS == 0 {
				if got.WindowS < 0 || got.WindowS > 5 {
					t.Errorf("window %.3f s between two readings taken at once", got.WindowS)
				}
				got.WindowS = 0
			}
			if !deliveryEqual(*got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}
