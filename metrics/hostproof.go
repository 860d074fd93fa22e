package metrics

import (
	"bufio"
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"

	"github.com/sweep-tool/sweep/results"
)

// hostProof proves delivery to a target that has no network interfaces
// of its own (network_mode host, or another container's network), where
// the engine keeps no per-container network counters. The proof is the
// listening socket: every socket listening on the URL's port (at the
// URL's address or a wildcard one) in the target's network namespace must
// be held by a process of the target container, found by the socket's
// inode in /proc/<pid>/fd of each process, the target's being those that
// share its init process's cgroup. The CPU time the target used over the
// phase goes with it (sweep.CheckDelivery wants some per request). The
// processes are read from this machine's /proc, so this works where sweep
// runs on the engine's host with the rights to read other processes' fds
// (root, as the engine's users usually are); elsewhere it says why no
// proof was possible.
func (r *Reception) hostProof(ctx context.Context, end reading) *results.Delivery {
	if end.cpuNS < r.begin.cpuNS {
		return none("the target's CPU counter went back during the phase (it restarted)")
	}
	d := &results.Delivery{Method: results.DeliveryHostSocket, WindowS: end.at.Sub(r.begin.at).Seconds(),
		TargetCPUS: float64(end.cpuNS-r.begin.cpuNS) / 1e9}
	ips, port, err := localEndpoint(ctx, r.url)
	if err != nil {
		return none("the target has no network counters of its own and %v", err)
	}
	c, err := r.eng.ContainerInspect(ctx, r.id)
	if err != nil || c.State == nil || c.State.Pid == 0 {
		return none("the target has no network counters of its own and its process is unknown: %v", err)
	}
	p := procFS(r.procs)
	group, ok := p.groupOf(&c)
	if !ok {
		return none("the target has no network counters of its own and its processes are not visible here " +
			"(is the engine on another machine, or sweep in a container?)")
	}
	inodes, err := p.listening(c.State.Pid, port, ips)
	if err != nil {
		return none("the target has no network counters of its own and its sockets cannot be read: %v", err)
	}
	holders, err := p.holders(inodes)
	if err != nil {
		return none("the target has no network counters of its own and the owners of %s cannot be read: %v", r.url, err)
	}
	d.ListenerIsTarget = len(holders) > 0
	for _, pid := range holders {
		g, _ := p.cgroupOf(pid)
		in := g == group
		d.ListenerIsTarget = d.ListenerIsTarget && in
		d.Listeners = append(d.Listeners, p.describe(pid, in))
	}
	return d
}

// localEndpoint resolves rawURL's host to addresses of this machine and
// returns them with the port; an address that is not local is an error,
// since only a local socket can be looked up.
func localEndpoint(ctx context.Context, rawURL string) ([]net.IP, int, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, 0, fmt.Errorf("the URL does not parse: %w", err)
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		return nil, 0, fmt.Errorf("the URL's port %q is not a number", port)
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, u.Hostname())
	if err != nil {
		return nil, 0, fmt.Errorf("the URL's host does not resolve: %w", err)
	}
	local, _ := net.InterfaceAddrs()
	var ips []net.IP
	for _, a := range addrs {
		if a.IP.IsLoopback() || slices.ContainsFunc(local, func(l net.Addr) bool {
			ipn, ok := l.(*net.IPNet)
			return ok && ipn.IP.Equal(a.IP)
		}) {
			ips = append(ips, a.IP)
		}
	}
	if len(ips) == 0 {
		return nil, 0, fmt.Errorf("the URL's host %s is not an address of this machine", u.Hostname())
	}
	return ips, n, nil
}

// procFS reads processes and sockets from a proc file system mounted at
// the string ("/proc"; a directory laid out alike in tests).
type procFS string

func (p procFS) path(parts ...string) string {
	return filepath.Join(append([]string{string(p)}, parts...)...)
}

// cgroupOf returns the text of pid's cgroup file: two processes of one
// container have the same.
func (p procFS) cgroupOf(pid int) (string, error) {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "cgroup"))
	return string(b), err
}

// groupOf returns the cgroup of container c's process when that process
// is this machine's: its cgroup file names the container (an engine on
// another machine, or sweep in a container, sees another process or
// none); false otherwise.
func (p procFS) groupOf(c *container.InspectResponse) (string, bool) {
	if c == nil || c.ContainerJSONBase == nil || c.State == nil || c.State.Pid == 0 || c.ID == "" {
		return "", false
	}
	group, err := p.cgroupOf(c.State.Pid)
	return group, err == nil && strings.Contains(group, c.ID)
}

// netDev sums the received bytes and packets of every interface but
// loopback in the network namespace of pid (/proc/<pid>/net/dev).
func (p procFS) netDev(pid int) (bytes, packets uint64, err error) {
	f, err := os.Open(p.path(strconv.Itoa(pid), "net", "dev"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, counters, ok := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(counters)
		if !ok || len(fields) < 2 || strings.TrimSpace(name) == "lo" {
			continue // the two header lines, and loopback
		}
		b, err1 := strconv.ParseUint(fields[0], 10, 64)
		n, err2 := strconv.ParseUint(fields[1], 10, 64)
		if err := cmp.Or(err1, err2); err != nil {
			return 0, 0, fmt.Errorf("%s: %w", f.Name(), err)
		}
		bytes += b
		packets += n
	}
	return bytes, packets, sc.Err()
}

// runDelays reads the run-queue delay, in nanoseconds, of every task of
// container cgroup group (cgroupOf's text), by task id: the second field
// of /proc/<tid>/schedstat, the task's time runnable but not running
// since it started. The tasks are listed by the cgroup's own file under
// cgroups (the cgroup file systems' root, /sys/fs/cgroup): tasks of the
// v1 pids or cpu hierarchy, or cgroup.threads of the v2 one (also as
// unified/ beside v1 ones). A task that ends while it is read is skipped.
func (p procFS) runDelays(group, cgroups string) (map[int]uint64, error) {
	tids, err := tasksOf(group, cgroups)
	if err != nil {
		return nil, err
	}
	out := make(map[int]uint64, len(tids))
	for _, tid := range tids {
		file := p.path(strconv.Itoa(tid), "schedstat")
		b, err := os.ReadFile(file)
		if err != nil {
			continue // ended
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			return nil, fmt.Errorf("%s: %q has no run-queue delay", file, b)
		}
		if out[tid], err = strconv.ParseUint(fields[1], 10, 64); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no task of cgroup %q could be read", strings.TrimSpace(group))
	}
	return out, nil
}

// tasksOf lists the task ids of cgroup group from the first of its
// hierarchies' task lists found under cgroups.
func tasksOf(group, cgroups string) ([]int, error) {
	var files []string
	for line := range strings.Lines(group) {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		ctrls, path := parts[1], parts[2]
		if ctrls == "" { // v2
			files = append(files, filepath.Join(cgroups, path, "cgroup.threads"), filepath.Join(cgroups, "unified", path, "cgroup.threads"))
			continue
		}
		for c := range strings.SplitSeq(ctrls, ",") {
			if c == "pids" || c == "cpu" {
				files = append(files, filepath.Join(cgroups, ctrls, path, "tasks"))
			}
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var tids []int
		for _, field := range strings.Fields(string(b)) {
			tid, err := strconv.Atoi(field)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			tids = append(tids, tid)
		}
		return tids, nil
	}
	return nil, fmt.Errorf("no task list of cgroup %q under %s", strings.TrimSpace(group), cgroups)
}

// waitedBetween is the run-queue delay the tasks of end accrued since
// begin: a task in both, its growth; a task new since (or whose counter
// went back: its id reused), all of its delay. A task that ended between
// the two readings takes its delay with it, so the sum is a lower bound.
func waitedBetween(begin, end map[int]uint64) uint64 {
	var ns uint64
	for tid, e := range end {
		if b, ok := begin[tid]; ok && b <= e {
			ns += e - b
		} else {
			ns += e
		}
	}
	return ns
}

// describe names a process for the record: "pid 812 demoapp (target)".
func (p procFS) describe(pid int, inTarget bool) string {
	comm, _ := os.ReadFile(p.path(strconv.Itoa(pid), "comm"))
	s := fmt.Sprintf("pid %d %s", pid, cmp.Or(strings.TrimSpace(string(comm)), "?"))
	if inTarget {
		s += " (target)"
	}
	return s
}

// listening returns the inodes of the TCP sockets listening on port at
// one of ips, or at a wildcard address, in the network namespace of pid.
func (p procFS) listening(pid, port int, ips []net.IP) (map[uint64]bool, error) {
	inodes := map[uint64]bool{}
	for _, file := range []string{"tcp", "tcp6"} {
		f, err := os.Open(p.path(strconv.Itoa(pid), "net", file))
		if errors.Is(err, os.ErrNotExist) && file == "tcp6" {
			continue // a kernel without IPv6
		}
		if err != nil {
			return nil, err
		}
		err = scanListeners(f, port, ips, inodes)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name(), err)
		}
	}
	return inodes, nil
}

// tcpListen is the state column of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// scanListeners adds to inodes the listening sockets of a /proc/net/tcp
// or tcp6 table that match port and one of ips (or a wildcard address).
func scanListeners(f *os.File, port int, ips []net.IP, inodes map[uint64]bool) error {
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != tcpListen {
			continue
		}
		ip, lport, err := parseHexAddr(fields[1])
		if err != nil {
			return err
		}
		if lport != port || !(ip.IsUnspecified() || slices.ContainsFunc(ips, ip.Equal)) {
			continue
		}
		inode, err := strconv.ParseUint(fields[9], 10, 64)
		if err != nil {
			return fmt.Errorf("inode %q: %w", fields[9], err)
		}
		inodes[inode] = true
	}
	return sc.Err()
}

// parseHexAddr reads "0100007F:1F90" (127.0.0.1:8080): the address is
// written as 32-bit words in the host's byte order, little-endian on the
// machines Docker runs on; the port in plain hex.
func parseHexAddr(s string) (net.IP, int, error) {
	addr, port, ok := strings.Cut(s, ":")
	b, err := hex.DecodeString(addr)
	if !ok || err != nil || (len(b) != 4 && len(b) != 16) {
		return nil, 0, fmt.Errorf("socket address %q", s)
	}
	for w := 0; w < len(b); w += 4 {
		b[w], b[w+1], b[w+2], b[w+3] = b[w+3], b[w+2], b[w+1], b[w]
	}
	n, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return nil, 0, fmt.Errorf("socket port %q", s)
	}
	return net.IP(b), int(n), nil
}

// holders returns the processes holding a socket of inodes, by pid.
// Processes that end while they are read are passed over; an fd table
// that cannot be read for lack of rights is an error, since a holder
// could hide there.
func (p procFS) holders(inodes map[uint64]bool) ([]int, error) {
	if len(inodes) == 0 {
		return nil, nil
	}
	entries, err := os.ReadDir(string(p))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fds, err := os.ReadDir(p.path(e.Name(), "fd"))
		if errors.Is(err, os.ErrPermission) {
			return nil, fmt.Errorf("%w (run sweep as root to prove delivery to a host-network target)", err)
		}
		if holdsOne(p.path(e.Name(), "fd"), fds, inodes) {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func holdsOne(dir string, fds []os.DirEntry, inodes map[uint64]bool) bool {
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, fd.Name()))
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		inode, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
		if err == nil && inodes[inode] {
			return true
		}
	}
	return false
}
